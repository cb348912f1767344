// The kernel corpus: with FUSEBOX_RECORD_KERNELS=DIR, every kernel a backend
// is asked to compile is written to DIR, one file per distinct kernel. A
// change that must not change generated code (a refactor of a scheduler, a
// new printer) proves it by recording the test suite before and after and
// comparing the folders (tools/scripts/kernel_corpus.py; docs/testing.md).
#pragma once

#include <fusebox/backend/kernel.h>

namespace fusebox {

// Nothing unless FUSEBOX_RECORD_KERNELS is set. Writes DIR/<name>-<hash>.cu:
// the kernel's name, flags and options as comments, then its source. Throws
// UserError naming the folder when it cannot be written.
void recordKernelSource(const KernelSource& kernel);

}  // namespace fusebox
