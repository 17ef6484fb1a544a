# The stage rule, enforced by the linker.  For each stage, a shared
# library pd_stage_check_<stage> is linked from the stage's objects and
# those of the stages it uses (PD_USES_<stage>, followed through each of
# them) with --no-undefined: a call from a stage into one it does not
# name, or into a later one, leaves an undefined symbol and fails the
# build, naming the function.  These libraries are checks only: nothing
# installs or loads them.
#
# Skipped under the sanitizers and libFuzzer, whose runtimes a shared
# library leaves undefined for the program to bring.

# The stages `stage` reaches through PD_USES_*, itself excluded, in *out.
function(pd_stage_closure stage out)
  set(seen "")
  set(todo ${PD_USES_${stage}})
  while(todo)
    list(POP_FRONT todo s)
    if(NOT s IN_LIST seen)
      list(APPEND seen ${s})
      list(APPEND todo ${PD_USES_${s}})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

if(NOT PERFDIFF_SANITIZE AND NOT PERFDIFF_FUZZ)
  foreach(stage IN LISTS PD_STAGES)
    pd_stage_closure(${stage} uses)
    set(objs $<TARGET_OBJECTS:pd_${stage}>)
    foreach(s IN LISTS uses)
      list(APPEND objs $<TARGET_OBJECTS:pd_${s}>)
    endforeach()
    add_library(pd_stage_check_${stage} SHARED ${objs})
    target_link_libraries(pd_stage_check_${stage} PRIVATE ${PD_LIB_DEPS})
    target_link_options(pd_stage_check_${stage} PRIVATE -Wl,--no-undefined)
    set_target_properties(pd_stage_check_${stage} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/stage-check)
  endforeach()
endif()
