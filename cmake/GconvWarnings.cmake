add_library(gconv_warnings INTERFACE)
target_compile_options(gconv_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers)
