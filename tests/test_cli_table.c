/*
 * The command line's option table (tools/perfdiff/cli_opttab.c) checked
 * as data, compiled in here as it is into the CLI: no command has two
 * rows of one name, every row says what its value is, a hint points at
 * an option its commands have, and the manual source each row names as
 * its anchor documents it (as "*--name*" or "*-n*").  test_cli checks
 * the other way, from each command's --help to the list the table gives.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/perfdiff/cli_opttab.c"

#define MAN_DIR PD_TEST_DATA_DIR "/../../docs/man/"

static const unsigned commands[] = { CLI_CMD_TOP, CLI_CMD_DUMP, CLI_CMD_SCRIPT, CLI_CMD_REPORT,
				     CLI_CMD_DIFF, CLI_CMD_EXPLAIN, CLI_CMD_TUI };

/* Whether rows a and b have a name or short name in common. */
static bool same_name(const cli_optdef *a, const cli_optdef *b)
{
	const char *an[2] = { a->name, a->alias }, *bn[2] = { b->name, b->alias };
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (an[i] && bn[j] && strcmp(an[i], bn[j]) == 0)
				return true;
	return false;
}

START_TEST(test_one_row_per_name_and_command)
{
	size_t n;
	const cli_optdef *t = cli_opttab(&n);
	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				ck_assert_msg(!((t[i].cmds & t[j].cmds & commands[c]) &&
						same_name(&t[i], &t[j])),
					      "%s twice for command bit %#x", t[i].name, commands[c]);
}
END_TEST

START_TEST(test_rows_say_what_their_value_is)
{
	size_t n;
	const cli_optdef *t = cli_opttab(&n);
	for (size_t i = 0; i < n; i++) {
		const cli_optdef *o = &t[i];
		ck_assert_msg(o->name[0] == '-' && o->cmds, "row %zu", i);
		bool takes = o->kind != CLI_FLAG && o->kind != CLI_HELP && o->kind != CLI_HINT;
		ck_assert_msg(takes == (o->arg != NULL), "%s: a value and its ARG go together",
			      o->name);
		if (o->kind == CLI_WORD)
			ck_assert_msg(strchr(o->arg, '|'), "%s: no words", o->name);
		if (o->kind == CLI_UINT || o->kind == CLI_DOUBLE)
			ck_assert_msg(o->need && o->lo <= o->hi, "%s: no range", o->name);
		for (size_t c = 0; o->kind == CLI_HINT && c < sizeof commands / sizeof commands[0]; c++) {
			if (!(o->cmds & commands[c]))
				continue;
			const cli_optdef *to = cli_opt_find(commands[c], o->hint, strlen(o->hint));
			ck_assert_msg(to && to->kind != CLI_HINT, "%s: hint %s is no option of %#x",
				      o->name, o->hint, commands[c]);
		}
		/* the parser's own rows take no value but a FILE; a flag of
		 * none is taken and changes nothing (--stdio) */
		bool own = o->kind == CLI_INPUT || o->kind == CLI_HELP || o->kind == CLI_HINT;
		ck_assert_msg(o->part == CLI_PART_NONE ? own || o->kind == CLI_FLAG : !own,
			      "%s: who takes its value?", o->name);
	}
}
END_TEST

/* Whether the manual source `file` has "*NAME*". */
static bool documents(const char *file, const char *name)
{
	char path[4096], needle[128];
	snprintf(path, sizeof path, "%s%s", MAN_DIR, file);
	size_t len = 0;
	char *text = (char *)pd_test_read_file(path, &len);
	ck_assert_msg(text, "%s: no such manual source", path);
	char *z = realloc(text, len + 1);
	ck_assert_ptr_nonnull(z);
	z[len] = '\0';
	snprintf(needle, sizeof needle, "*%s*", name);
	bool found = strstr(z, needle) != NULL;
	free(z);
	return found;
}

START_TEST(test_anchors_document_their_rows)
{
	size_t n;
	const cli_optdef *t = cli_opttab(&n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(t[i].anchor, "%s: no anchor", t[i].name);
		ck_assert_msg(documents(t[i].anchor, t[i].name), "%s does not document %s",
			      t[i].anchor, t[i].name);
		if (t[i].alias)
			ck_assert_msg(documents(t[i].anchor, t[i].alias), "%s does not document %s",
				      t[i].anchor, t[i].alias);
	}
}
END_TEST

static Suite *table_suite(void)
{
	Suite *s = suite_create("cli_table");
	TCase *tc = tcase_create("cli_table");
	tcase_add_test(tc, test_one_row_per_name_and_command);
	tcase_add_test(tc, test_rows_say_what_their_value_is);
	tcase_add_test(tc, test_anchors_document_their_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pd_test_main(table_suite());
}
