#include "textflag.h"

// The VNNI kernels' ends: the sums of four rows (Z0-Z3, 16 each) or one
// (Z0) folded to one each, X15 (the query's correction) taken off, stored
// at (R9).
#define VNNI_STORE4 \
	VEXTRACTI64X4 $1, Z0, Y4 \
	VEXTRACTI64X4 $1, Z1, Y5 \
	VEXTRACTI64X4 $1, Z2, Y6 \
	VEXTRACTI64X4 $1, Z3, Y7 \
	VPADDD        Y4, Y0, Y0 \
	VPADDD        Y5, Y1, Y1 \
	VPADDD        Y6, Y2, Y2 \
	VPADDD        Y7, Y3, Y3 \
	VPHADDD       Y1, Y0, Y0 \
	VPHADDD       Y3, Y2, Y2 \
	VPHADDD       Y2, Y0, Y0 \
	VEXTRACTI128  $1, Y0, X1 \
	VPADDD        X1, X0, X0 \
	VPSUBD        X15, X0, X0 \
	VMOVDQU       X0, (R9)

#define VNNI_STORE1 \
	VEXTRACTI64X4 $1, Z0, Y4 \
	VPADDD        Y4, Y0, Y0 \
	VEXTRACTI128  $1, Y0, X1 \
	VPADDD        X1, X0, X0 \
	VPHADDD       X0, X0, X0 \
	VPHADDD       X0, X0, X0 \
	VPSUBD        X15, X0, X0 \
	MOVL          X0, (R9)

// The AVX2 kernels' ends: the sums of four rows (Y0-Y3, 8 each) folded
// to one each in X0 (per 128-bit lane [a01 a23 b01 b23], [c01 c23 d01
// d23], then [a b c d]; the two lanes added), or of one row (Y0) to X0's
// lowest.
#define AVX2_FOLD4 \
	VPHADDD      Y1, Y0, Y0 \
	VPHADDD      Y3, Y2, Y2 \
	VPHADDD      Y2, Y0, Y0 \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD       X1, X0, X0

#define AVX2_FOLD1 \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD       X1, X0, X0 \
	VPHADDD      X0, X0, X0 \
	VPHADDD      X0, X0, X0

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JL   reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

tail:
	CMPQ CX, $0
	JE   done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotI8BatchAVX2(qa *uint8, qs *int8, v *int8, n, rows int, out *int32)
// For rows consecutive rows of n int8 each (n a multiple of 16), writes to
// out[r] the inner product of row r and the query q, given as its
// magnitudes qa = |q| and q itself as qs (|q| <= 127). Each 32 bytes of a
// row take the query's signs (VPSIGNB), are multiplied by the magnitudes
// and added in pairs (VPMADDUBSW: |q|*|v| <= 127*127, so a pair never
// saturates), then widened to int32 (VPMADDWD by ones). Rows go four at
// a time, sharing the query's loads and one horizontal reduction.
TEXT ·dotI8BatchAVX2(SB), NOSPLIT, $0-48
	MOVQ qa+0(FP), SI
	MOVQ qs+8(FP), R11
	MOVQ v+16(FP), DI
	MOVQ n+24(FP), DX
	MOVQ rows+32(FP), R8
	MOVQ out+40(FP), R9
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15

quad:
	CMPQ R8, $4
	JL   single
	LEAQ (DI)(DX*1), R12
	LEAQ (DI)(DX*2), R13
	LEAQ (R12)(DX*2), R14
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  CX, CX

q32:
	MOVQ DX, BX
	SUBQ CX, BX
	CMPQ BX, $32
	JL   q16
	VMOVDQU    (SI)(CX*1), Y4
	VMOVDQU    (R11)(CX*1), Y5
	VMOVDQU    (DI)(CX*1), Y6
	VMOVDQU    (R12)(CX*1), Y7
	VMOVDQU    (R13)(CX*1), Y8
	VMOVDQU    (R14)(CX*1), Y9
	VPSIGNB    Y5, Y6, Y6
	VPSIGNB    Y5, Y7, Y7
	VPSIGNB    Y5, Y8, Y8
	VPSIGNB    Y5, Y9, Y9
	VPMADDUBSW Y6, Y4, Y6
	VPMADDUBSW Y7, Y4, Y7
	VPMADDUBSW Y8, Y4, Y8
	VPMADDUBSW Y9, Y4, Y9
	VPMADDWD   Y15, Y6, Y6
	VPMADDWD   Y15, Y7, Y7
	VPMADDWD   Y15, Y8, Y8
	VPMADDWD   Y15, Y9, Y9
	VPADDD     Y6, Y0, Y0
	VPADDD     Y7, Y1, Y1
	VPADDD     Y8, Y2, Y2
	VPADDD     Y9, Y3, Y3
	ADDQ       $32, CX
	JMP        q32

q16:
	CMPQ BX, $16
	JL   qreduce
	// 128-bit forms zero the upper halves, so the adds below add zeros
	// there.
	VMOVDQU    (SI)(CX*1), X4
	VMOVDQU    (R11)(CX*1), X5
	VMOVDQU    (DI)(CX*1), X6
	VMOVDQU    (R12)(CX*1), X7
	VMOVDQU    (R13)(CX*1), X8
	VMOVDQU    (R14)(CX*1), X9
	VPSIGNB    X5, X6, X6
	VPSIGNB    X5, X7, X7
	VPSIGNB    X5, X8, X8
	VPSIGNB    X5, X9, X9
	VPMADDUBSW X6, X4, X6
	VPMADDUBSW X7, X4, X7
	VPMADDUBSW X8, X4, X8
	VPMADDUBSW X9, X4, X9
	VPMADDWD   X15, X6, X6
	VPMADDWD   X15, X7, X7
	VPMADDWD   X15, X8, X8
	VPMADDWD   X15, X9, X9
	VPADDD     Y6, Y0, Y0
	VPADDD     Y7, Y1, Y1
	VPADDD     Y8, Y2, Y2
	VPADDD     Y9, Y3, Y3

qreduce:
	AVX2_FOLD4
	VMOVDQU      X0, (R9)
	LEAQ         (DI)(DX*4), DI
	ADDQ         $16, R9
	SUBQ         $4, R8
	JMP          quad

single:
	CMPQ R8, $0
	JE   done
	VPXOR Y0, Y0, Y0
	XORQ  CX, CX

s32:
	MOVQ DX, BX
	SUBQ CX, BX
	CMPQ BX, $32
	JL   s16
	VMOVDQU    (SI)(CX*1), Y4
	VMOVDQU    (DI)(CX*1), Y6
	VPSIGNB    (R11)(CX*1), Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	ADDQ       $32, CX
	JMP        s32

s16:
	CMPQ BX, $16
	JL   sreduce
	VMOVDQU    (SI)(CX*1), X4
	VMOVDQU    (DI)(CX*1), X6
	VPSIGNB    (R11)(CX*1), X6, X6
	VPMADDUBSW X6, X4, X6
	VPMADDWD   X15, X6, X6
	VPADDD     Y6, Y0, Y0

sreduce:
	AVX2_FOLD1
	MOVL         X0, (R9)
	ADDQ         DX, DI
	ADDQ         $4, R9
	DECQ         R8
	JMP          single

done:
	VZEROUPPER
	RET

// func dotI8BatchVNNI(qs *int8, v *int8, n, rows int, out *int32, corr int32)
// dotI8BatchAVX2 with AVX-512 VNNI, for n a multiple of 64: each 64 bytes
// of a row, flipped to unsigned (v XOR 0x80 = v+128), are multiplied by
// the query's signed bytes and summed in fours straight into int32
// (VPDPBUSD: 255*127*4 per step, no saturation). The row's sum is then
// sum(v*q) + 128*sum(q); corr = 128*sum(q) is taken off at the end.
// Four rows at a time, sharing the query's loads.
TEXT ·dotI8BatchVNNI(SB), NOSPLIT, $0-44
	MOVQ qs+0(FP), R11
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R9
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z16
	MOVL corr+40(FP), AX
	VPBROADCASTD AX, X15

vquad:
	CMPQ R8, $4
	JL   vsingle
	LEAQ (DI)(DX*1), R12
	LEAQ (DI)(DX*2), R13
	LEAQ (R12)(DX*2), R14
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ   CX, CX

vq64:
	CMPQ      CX, DX
	JGE       vqreduce
	VMOVDQU64 (R11)(CX*1), Z17
	VPXORD    (DI)(CX*1), Z16, Z6
	VPXORD    (R12)(CX*1), Z16, Z7
	VPXORD    (R13)(CX*1), Z16, Z8
	VPXORD    (R14)(CX*1), Z16, Z9
	VPDPBUSD  Z17, Z6, Z0
	VPDPBUSD  Z17, Z7, Z1
	VPDPBUSD  Z17, Z8, Z2
	VPDPBUSD  Z17, Z9, Z3
	ADDQ      $64, CX
	JMP       vq64

vqreduce:
	VNNI_STORE4
	LEAQ          (DI)(DX*4), DI
	ADDQ          $16, R9
	SUBQ          $4, R8
	JMP           vquad

vsingle:
	CMPQ   R8, $0
	JE     vdone
	VPXORD Z0, Z0, Z0
	XORQ   CX, CX

vs64:
	CMPQ     CX, DX
	JGE      vsreduce
	VPXORD   (DI)(CX*1), Z16, Z6
	VPDPBUSD (R11)(CX*1), Z6, Z0
	ADDQ     $64, CX
	JMP      vs64

vsreduce:
	VNNI_STORE1
	ADDQ          DX, DI
	ADDQ          $4, R9
	DECQ          R8
	JMP           vsingle

vdone:
	VZEROUPPER
	RET

// func dotI4BatchVNNI(qs *int8, v *uint8, nb, rows int, out *int32, corr int32)
// The first stage's kernel: rows of nb bytes (a multiple of 64), each
// byte two components stored as unsigned nibbles (x+8): in each 64 bytes,
// the low nibbles are the next 64 components and the high nibbles the 64
// after them, which is the query's own order. Both halves are multiplied
// by the query's signed bytes (VPDPBUSD) into int32; corr = 8*sum(q) is
// taken off at the end. Four rows at a time.
TEXT ·dotI4BatchVNNI(SB), NOSPLIT, $0-44
	MOVQ qs+0(FP), R11
	MOVQ v+8(FP), DI
	MOVQ nb+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R9
	MOVL $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z16
	MOVL corr+40(FP), AX
	VPBROADCASTD AX, X15

nquad:
	CMPQ R8, $4
	JL   nsingle
	LEAQ (DI)(DX*1), R12
	LEAQ (DI)(DX*2), R13
	LEAQ (R12)(DX*2), R14
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ   CX, CX
	MOVQ   R11, R10

nq64:
	CMPQ      CX, DX
	JGE       nqreduce
	VMOVDQU64 (R10), Z17
	VMOVDQU64 64(R10), Z18
	VMOVDQU64 (DI)(CX*1), Z6
	VMOVDQU64 (R12)(CX*1), Z7
	VMOVDQU64 (R13)(CX*1), Z8
	VMOVDQU64 (R14)(CX*1), Z9
	VPSRLW    $4, Z6, Z10
	VPSRLW    $4, Z7, Z11
	VPSRLW    $4, Z8, Z12
	VPSRLW    $4, Z9, Z13
	VPANDD    Z16, Z6, Z6
	VPANDD    Z16, Z7, Z7
	VPANDD    Z16, Z8, Z8
	VPANDD    Z16, Z9, Z9
	VPANDD    Z16, Z10, Z10
	VPANDD    Z16, Z11, Z11
	VPANDD    Z16, Z12, Z12
	VPANDD    Z16, Z13, Z13
	VPDPBUSD  Z17, Z6, Z0
	VPDPBUSD  Z17, Z7, Z1
	VPDPBUSD  Z17, Z8, Z2
	VPDPBUSD  Z17, Z9, Z3
	VPDPBUSD  Z18, Z10, Z0
	VPDPBUSD  Z18, Z11, Z1
	VPDPBUSD  Z18, Z12, Z2
	VPDPBUSD  Z18, Z13, Z3
	ADDQ      $64, CX
	ADDQ      $128, R10
	JMP       nq64

nqreduce:
	VNNI_STORE4
	LEAQ          (DI)(DX*4), DI
	ADDQ          $16, R9
	SUBQ          $4, R8
	JMP           nquad

nsingle:
	CMPQ   R8, $0
	JE     ndone
	VPXORD Z0, Z0, Z0
	XORQ   CX, CX
	MOVQ   R11, R10

ns64:
	CMPQ      CX, DX
	JGE       nsreduce
	VMOVDQU64 (DI)(CX*1), Z6
	VPSRLW    $4, Z6, Z10
	VPANDD    Z16, Z6, Z6
	VPANDD    Z16, Z10, Z10
	VPDPBUSD  (R10), Z6, Z0
	VPDPBUSD  64(R10), Z10, Z0
	ADDQ      $64, CX
	ADDQ      $128, R10
	JMP       ns64

nsreduce:
	VNNI_STORE1
	ADDQ          DX, DI
	ADDQ          $4, R9
	DECQ          R8
	JMP           nsingle

ndone:
	VZEROUPPER
	RET

// func dotI4BatchAVX2(qs *int8, v *uint8, nb, rows int, out *int32, corr int32)
// The first stage's kernel where AVX-512 VNNI is missing: the rows and
// the result as dotI4BatchVNNI's. Each 32 row bytes hold two runs of 32
// components, the low nibbles (components o..o+31 of their 128) and the
// high ones (o+64..o+95); each run is multiplied by the query's signed
// bytes as unsigned x+8 (VPMADDUBSW: 15*127*2 fits 16 bits, and so does
// the two runs' sum), widened to int32 (VPMADDWD by ones) and added up;
// corr = 8*sum(q) is taken off at the end. Four rows at a time, sharing
// the query's loads. Half the bytes of the int8 scan, for the scans that
// wait on memory.
TEXT ·dotI4BatchAVX2(SB), NOSPLIT, $0-44
	MOVQ         qs+0(FP), R11
	MOVQ         v+8(FP), DI
	MOVQ         nb+16(FP), DX
	MOVQ         rows+24(FP), R8
	MOVQ         out+32(FP), R9
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	MOVL         corr+40(FP), AX
	VMOVD        AX, X13
	VPBROADCASTD X13, X13
	VPCMPEQW     Y15, Y15, Y15
	VPSRLW       $15, Y15, Y15

aquad:
	CMPQ  R8, $4
	JL    asingle
	LEAQ  (DI)(DX*1), R12
	LEAQ  (DI)(DX*2), R13
	LEAQ  (R12)(DX*2), R14
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  CX, CX
	MOVQ  R11, R10

aq32:
	CMPQ       CX, DX
	JGE        aqreduce
	// The chunk's first 32 bytes pair with query bytes 0..31 and
	// 64..95 of its 128, the next 32 with 32..63 and 96..127.
	MOVQ       CX, BX
	ANDQ       $32, BX
	VMOVDQU    (R10)(BX*1), Y4
	VMOVDQU    64(R10)(BX*1), Y5
	VMOVDQU    (DI)(CX*1), Y6
	VMOVDQU    (R12)(CX*1), Y7
	VPSRLW     $4, Y6, Y10
	VPSRLW     $4, Y7, Y11
	VPAND      Y14, Y6, Y6
	VPAND      Y14, Y7, Y7
	VPAND      Y14, Y10, Y10
	VPAND      Y14, Y11, Y11
	VPMADDUBSW Y4, Y6, Y6
	VPMADDUBSW Y4, Y7, Y7
	VPMADDUBSW Y5, Y10, Y10
	VPMADDUBSW Y5, Y11, Y11
	VPADDW     Y10, Y6, Y6
	VPADDW     Y11, Y7, Y7
	VPMADDWD   Y15, Y6, Y6
	VPMADDWD   Y15, Y7, Y7
	VPADDD     Y6, Y0, Y0
	VPADDD     Y7, Y1, Y1
	VMOVDQU    (R13)(CX*1), Y8
	VMOVDQU    (R14)(CX*1), Y9
	VPSRLW     $4, Y8, Y10
	VPSRLW     $4, Y9, Y11
	VPAND      Y14, Y8, Y8
	VPAND      Y14, Y9, Y9
	VPAND      Y14, Y10, Y10
	VPAND      Y14, Y11, Y11
	VPMADDUBSW Y4, Y8, Y8
	VPMADDUBSW Y4, Y9, Y9
	VPMADDUBSW Y5, Y10, Y10
	VPMADDUBSW Y5, Y11, Y11
	VPADDW     Y10, Y8, Y8
	VPADDW     Y11, Y9, Y9
	VPMADDWD   Y15, Y8, Y8
	VPMADDWD   Y15, Y9, Y9
	VPADDD     Y8, Y2, Y2
	VPADDD     Y9, Y3, Y3
	ADDQ       $32, CX
	// After a chunk's second half the query moves to the next 128.
	TESTQ      $32, CX
	JNZ        aq32
	ADDQ       $128, R10
	JMP        aq32

aqreduce:
	AVX2_FOLD4
	VPSUBD       X13, X0, X0
	VMOVDQU      X0, (R9)
	LEAQ         (DI)(DX*4), DI
	ADDQ         $16, R9
	SUBQ         $4, R8
	JMP          aquad

asingle:
	CMPQ  R8, $0
	JE    adone
	VPXOR Y0, Y0, Y0
	XORQ  CX, CX
	MOVQ  R11, R10

as32:
	CMPQ       CX, DX
	JGE        asreduce
	MOVQ       CX, BX
	ANDQ       $32, BX
	VMOVDQU    (R10)(BX*1), Y4
	VMOVDQU    64(R10)(BX*1), Y5
	VMOVDQU    (DI)(CX*1), Y6
	VPSRLW     $4, Y6, Y10
	VPAND      Y14, Y6, Y6
	VPAND      Y14, Y10, Y10
	VPMADDUBSW Y4, Y6, Y6
	VPMADDUBSW Y5, Y10, Y10
	VPADDW     Y10, Y6, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	ADDQ       $32, CX
	TESTQ      $32, CX
	JNZ        as32
	ADDQ       $128, R10
	JMP        as32

asreduce:
	AVX2_FOLD1
	VPSUBD       X13, X0, X0
	MOVL         X0, (R9)
	ADDQ         DX, DI
	ADDQ         $4, R9
	DECQ         R8
	JMP          asingle

adone:
	VZEROUPPER
	RET
