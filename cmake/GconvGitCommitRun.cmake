# Writes OUTPUT (a header defining GCONV_GIT_COMMIT) from the git checkout at SOURCE: the short
# commit, "-dirty" when tracked files differ from it, "unknown" outside a checkout. Run at every
# build (core/CMakeLists.txt); the header changes only when the commit or the dirty state does,
# so only util/build_info.cpp recompiles then.
execute_process(COMMAND git -C "${SOURCE}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE failed)
if(failed OR NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git -C "${SOURCE}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE "${OUTPUT}.tmp" "#define GCONV_GIT_COMMIT \"${commit}\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
