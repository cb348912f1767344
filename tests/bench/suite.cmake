# The suite tests the statistics and JSON library of `fusebox compare` / `fusebox bench`.
target_link_libraries(${target} PRIVATE fusebox_bench)
