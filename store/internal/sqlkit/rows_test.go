package sqlkit

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestHalfToFloat(t *testing.T) {
	cases := []struct {
		h    uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3800, 0.5}, {0x0000, 0}, {0x7bff, 65504},
		{0x0001, float32(math.Pow(2, -24))}, {0x8001, -float32(math.Pow(2, -24))}, {0x3555, 0.333251953125},
	}
	for _, c := range cases {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if got := halfToFloat(0x7c00); !math.IsInf(float64(got), 1) {
		t.Errorf("halfToFloat(+inf) = %v", got)
	}
	if got := halfToFloat(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat(NaN) = %v", got)
	}
}

func TestDecodeVector(t *testing.T) {
	vec := []byte{0, 2, 0, 0}
	vec = binary.BigEndian.AppendUint32(vec, math.Float32bits(1.5))
	vec = binary.BigEndian.AppendUint32(vec, math.Float32bits(-1e-7))
	got, err := FromPGVector(vec)
	if err != nil || len(got) != 2 || got[0] != 1.5 || got[1] != -1e-7 {
		t.Errorf("decode vector = %v, %v", got, err)
	}
	half := []byte{0, 2, 0, 0, 0x3c, 0x00, 0xc0, 0x00}
	got, err = FromPGVector(half)
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != -2 {
		t.Errorf("decode halfvec = %v, %v", got, err)
	}
	if _, err := FromPGVector([]byte{0, 3, 0, 0, 1, 2}); err == nil {
		t.Error("decoding a truncated vector succeeded")
	}
}
