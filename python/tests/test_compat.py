"""nvfuser_direct / nvfuser: existing code and Lightning Thunder's imports run unchanged."""

import pytest
import torch


def _version_tuple(text):
    return tuple(int(p) for p in text.split("+")[0].split("."))


def test_thunder_imports():
    import nvfuser_direct as nvfuser
    from nvfuser_direct import (DataType, FusionDefinition, LruFusionCache, ParallelType,  # noqa: F401
                                compute_tensor_descriptor, execute_with_dtensors, multidevice)

    assert _version_tuple(nvfuser.version()) >= (0, 2, 34)
    assert "fusebox" in nvfuser.version()
    with pytest.raises(nvfuser.FuseboxError, match="multi-device execution is not supported"):
        multidevice.DeviceMesh(torch.arange(2))
    with pytest.raises(nvfuser.FuseboxError, match="multi-device"):
        execute_with_dtensors(None, [])
    assert ParallelType.mesh_x.name == "mesh_x"


def test_compute_tensor_descriptor():
    from nvfuser_direct import compute_tensor_descriptor

    assert compute_tensor_descriptor([4, 3], [3, 1]) == ([True, True], [1, 0])
    assert compute_tensor_descriptor([4, 3], [1, 4]) == ([True, True], [0, 1])
    assert compute_tensor_descriptor([4, 1, 3], [3, 3, 1]) == ([True, None, True], [2, 1, 0])
    t = torch.randn(5, 6)[:, ::2]
    contiguity, order = compute_tensor_descriptor(t.shape, t.stride())
    assert contiguity == [True, False] and order == [1, 0]


def test_thunder_style_definition():
    from nvfuser_direct import DataType, FusionDefinition, LruFusionCache

    @LruFusionCache(max_fusions=16)
    def create_fd():
        fd = FusionDefinition()
        fd._selected_device = None
        with fd:
            t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float,
                                  stride_order=[1, 0], is_cpu=False)
            s0 = fd.define_scalar(DataType.Double)
            c0 = fd.define_scalar(2, dtype=DataType.Int)
            t1 = fd.ops.mul(t0, s0)
            t2 = fd.ops.add(t1, c0)
            t3 = fd.ops.set(t2)
            fd.add_output(t3)
            fd.add_output(fd.ops.set(t2), alias_input=t0)  # Thunder's copy_
        return fd

    fd = create_fd()
    assert create_fd.num_fusions() >= 1
    x = torch.randn(3, 5)
    before = x.clone()
    (out,) = fd.execute([x, 0.5], device=fd._selected_device, _enable_options=[], _disable_options=[])
    torch.testing.assert_close(out, before * 0.5 + 2)
    torch.testing.assert_close(x, before * 0.5 + 2)


def test_nvfuser_alias_and_pytorch_utils():
    import nvfuser
    import nvfuser_direct
    from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

    assert nvfuser.FusionDefinition is nvfuser_direct.FusionDefinition
    assert torch_dtype_to_nvfuser_dtype(torch.bfloat16) == nvfuser.DataType.BFloat16
