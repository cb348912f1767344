# `fusebox run --backend cuda`; every test skips without a usable GPU.
add_dependencies(${target} fusebox)
target_compile_definitions(${target} PRIVATE FUSEBOX_EXE="$<TARGET_FILE:fusebox>")
list(APPEND labels gpu)
