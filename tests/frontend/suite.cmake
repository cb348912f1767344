# The corpus test checks its values against the built `fusebox` program.
add_dependencies(${target} fusebox)
target_compile_definitions(${target} PRIVATE FUSEBOX_EXE="$<TARGET_FILE:fusebox>")
