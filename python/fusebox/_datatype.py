"""DataType: nvFuser's dtype names. Members fusebox has no dtype for
(complex, float8, float4, uint64) exist so that code naming them imports;
a definition that uses one gets an error naming the dtype."""

import enum


class DataType(enum.Enum):
    Double = "Double"
    Float = "Float"
    Half = "Half"
    Int = "Int"
    Int32 = "Int32"
    UInt64 = "UInt64"
    Bool = "Bool"
    BFloat16 = "BFloat16"
    Float8_e4m3fn = "Float8_e4m3fn"
    Float8_e5m2 = "Float8_e5m2"
    Float8_e8m0fnu = "Float8_e8m0fnu"
    Float4_e2m1fn = "Float4_e2m1fn"
    Float4_e2m1fn_x2 = "Float4_e2m1fn_x2"
    ComplexFloat = "ComplexFloat"
    ComplexDouble = "ComplexDouble"
    Null = "Null"

    @property
    def _fusebox_dtype(self):
        # What the extension reads (values.cpp): the member's nvFuser name.
        return self.value

    def __repr__(self):
        return f"DataType.{self.name}"

    __str__ = __repr__
