# gconv_embed_files(OUTPUT out.cpp NAMESPACE ns FILES a.h b.h ...)
# Generates a C++ source defining ns::files(): a table of {file name, contents}, so that the
# device templates travel inside the binaries and are handed to hipRTC as named headers.
set(GCONV_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/GconvEmbedRun.cmake)

function(gconv_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT;NAMESPACE" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DNAMESPACE=${ARG_NAMESPACE}
            "-DFILES=${ARG_FILES}" -P ${GCONV_EMBED_SCRIPT}
    DEPENDS ${ARG_FILES} ${GCONV_EMBED_SCRIPT}
    COMMENT "Embedding device templates into ${ARG_OUTPUT}"
    VERBATIM)
endfunction()
