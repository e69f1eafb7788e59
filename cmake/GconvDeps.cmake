# GCONV_DEPS_DIR: a folder holding unpacked Debian packages (scripts/device/bundle_deps.sh),
# for machines without them installed. Its usr/ prefix is searched for nlohmann_json's CMake
# package and HIP's headers (see GconvHipNvidia.cmake).
set(GCONV_DEPS_DIR "" CACHE PATH "Folder of unpacked dependency packages (e.g. <repo>/.deps); empty: none")
if(GCONV_DEPS_DIR)
  if(NOT IS_DIRECTORY ${GCONV_DEPS_DIR}/usr)
    message(FATAL_ERROR "GCONV_DEPS_DIR=${GCONV_DEPS_DIR} has no usr/ folder: run scripts/device/bundle_deps.sh first")
  endif()
  list(PREPEND CMAKE_PREFIX_PATH ${GCONV_DEPS_DIR}/usr)
endif()
