# Everything here needs a GPU except the no-driver tests (which run anywhere);
# tests that need a device skip without one. `ctest -L gpu` selects the suite
# on a machine with a GPU.
list(APPEND labels gpu)
