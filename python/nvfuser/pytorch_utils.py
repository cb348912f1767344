"""nvfuser.pytorch_utils.torch_dtype_to_nvfuser_dtype, as repro scripts import it."""

from fusebox._torch import nvfuser_dtype as torch_dtype_to_nvfuser_dtype  # noqa: F401
