"""The library hands the module its warnings through the sink of its
options, and the module issues them through `warnings` once no lock is
held and the input they are about is read: for a Profile, input by input,
in the order of its .warnings; for samples(), at the end.  The oracle is
the profile's own list (its getters) and, for samples(), the same file's
warnings as a Profile holds them, with or without the library's threads."""

import os
import warnings

import pytest

import perfdiff


@pytest.fixture(scope="module")
def cut(base, work):
    """base[0] cut to two fifths: a lost tail and the sections after it."""
    data = open(base[0], "rb").read()
    path = os.path.join(work, "sink-cut.data")
    open(path, "wb").write(data[:len(data) * 2 // 5])
    return path


def texts(caught):
    return [(type(x.message), str(x.message)) for x in caught]


KINDS = {"other": perfdiff.PerfdiffWarning, "data_lost": perfdiff.DataLostWarning,
         "metadata": perfdiff.MetadataWarning, "unverified": perfdiff.UnverifiedWarning,
         "not_found": perfdiff.NotFoundWarning, "mismatch": perfdiff.MismatchWarning}


@pytest.mark.parametrize("threads", [0, None])
def test_profile_warns_input_by_input(base, cut, threads):
    inputs = [cut, base[0], cut]
    asked = []            # warnings issued when input k was asked for
    caught_box = []

    def feed():
        for path in inputs:
            asked.append(len(caught_box[0]))
            yield path

    kw = {} if threads is None else {"threads": threads}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        caught_box.append(caught)
        p = perfdiff.Profile(feed(), **kw)
    want = [(KINDS[k], m) for k, m in p.warnings]
    assert texts(caught) == want and len(want) >= 2
    # the cut input's warnings are out before the next input is read
    first = [m for _, m in want[:asked[1]]]
    assert asked[0] == 0 and first and all(cut in m for m in first)
    assert any(k is perfdiff.DataLostWarning for k, _ in want[:asked[1]])
    # the last input, the cut one again, warns after it was asked for
    assert asked[2] >= asked[1] and len(want) > asked[2]
    assert any(k is perfdiff.DataLostWarning for k, _ in want[asked[2]:])


def test_samples_warn_as_the_profile_does(cut):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        n = sum(1 for _ in perfdiff.samples(cut, threads=0))
    assert n > 0
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        p = perfdiff.Profile(cut, threads=0)
    # the profile names the file in front of a text that does not
    prefix = cut + ": "
    want = sorted((KINDS[k].__name__, m if m.startswith(cut) else prefix + m)
                  for k, m in p.warnings)
    got = sorted((k.__name__, m if m.startswith(cut) else prefix + m)
                 for k, m in texts(caught))
    assert got == want
    assert "DataLostWarning" in {k for k, _ in got}

