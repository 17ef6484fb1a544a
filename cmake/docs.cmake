# The manual pages, the command's --help and the bash completion, from one
# source each:
#
#   docs/man/*.scd (scdoc)  --scd-include.awk-->  BUILD/man-src/*.scd
#       --scdoc-->      BUILD/man/manN/*.N       (when scdoc is found;
#                                                 installed to share/man)
#       --scd2help.awk->  BUILD/tools/perfdiff/help_text.c   (always: the
#                                                 text of `perfdiff CMD --help`)
#   tools/perfdiff/perfdiff.bash  -> share/bash-completion/completions/perfdiff
#
# The --help text needs only awk, so a build without scdoc still has it;
# the pages themselves are skipped with a message.

set(PD_MAN_SRC ${PROJECT_SOURCE_DIR}/docs/man)
set(PD_MAN_PAGES perfdiff.1 perfdiff-dump.1 perfdiff-script.1 perfdiff-report.1
                 perfdiff-diff.1 perfdiff-explain.1 perfdiff-record.1 perfdiff-tui.1
                 libperfdiff.3)
file(GLOB PD_MAN_INCLUDES CONFIGURE_DEPENDS ${PD_MAN_SRC}/include/*.scd)

set(PD_MAN_EXPANDED)
foreach(page ${PD_MAN_PAGES})
  set(out ${PROJECT_BINARY_DIR}/man-src/${page}.scd)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man-src
    COMMAND sh -c "awk -v dir=\"$1\" -f \"$2\" \"$3\" > \"$4\"" sh
            ${PD_MAN_SRC}/include ${PROJECT_SOURCE_DIR}/cmake/scd-include.awk
            ${PD_MAN_SRC}/${page}.scd ${out}
    DEPENDS ${PD_MAN_SRC}/${page}.scd ${PD_MAN_INCLUDES}
            ${PROJECT_SOURCE_DIR}/cmake/scd-include.awk
    VERBATIM)
  list(APPEND PD_MAN_EXPANDED ${out})
endforeach()

# the commands' --help: the section 1 pages as plain text
set(PD_HELP_PAGES)
foreach(page perfdiff.1 perfdiff-dump.1 perfdiff-script.1 perfdiff-report.1 perfdiff-diff.1
             perfdiff-explain.1 perfdiff-record.1 perfdiff-tui.1)
  list(APPEND PD_HELP_PAGES ${PROJECT_BINARY_DIR}/man-src/${page}.scd)
endforeach()
set(PD_HELP_TEXT ${PROJECT_BINARY_DIR}/tools/perfdiff/help_text.c)
add_custom_command(OUTPUT ${PD_HELP_TEXT}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/tools/perfdiff
  COMMAND sh -c "out=\"$1\"; shift; awk -f \"$@\" > \"$out\"" sh ${PD_HELP_TEXT}
          ${PROJECT_SOURCE_DIR}/cmake/scd2help.awk ${PD_HELP_PAGES}
  DEPENDS ${PD_HELP_PAGES} ${PROJECT_SOURCE_DIR}/cmake/scd2help.awk
  VERBATIM)
target_sources(perfdiff_cli PRIVATE ${PD_HELP_TEXT})

# `perfdiff help CMD` finds the pages installed beside the program
file(RELATIVE_PATH PD_MANDIR_REL ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_MANDIR})
target_compile_definitions(perfdiff_cli PRIVATE PD_MANDIR_REL="${PD_MANDIR_REL}")

find_program(SCDOC scdoc)
if(SCDOC)
  set(PD_MAN_OUT)
  foreach(page ${PD_MAN_PAGES})
    string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
    set(out ${PROJECT_BINARY_DIR}/man/man${section}/${page})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man/man${section}
      COMMAND sh -c "\"$1\" < \"$2\" > \"$3\"" sh ${SCDOC}
              ${PROJECT_BINARY_DIR}/man-src/${page}.scd ${out}
      DEPENDS ${PROJECT_BINARY_DIR}/man-src/${page}.scd
      VERBATIM)
    list(APPEND PD_MAN_OUT ${out})
    install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(man ALL DEPENDS ${PD_MAN_OUT})
else()
  message(STATUS "scdoc not found: the manual pages are not built "
                 "(perfdiff --help has their text all the same)")
endif()

install(FILES ${PROJECT_SOURCE_DIR}/tools/perfdiff/perfdiff.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME perfdiff)
