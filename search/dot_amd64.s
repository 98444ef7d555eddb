#include "textflag.h"

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

// func dotI8AVX2(q *int16, v *int8, n int) int32
// n is a multiple of 16.
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y2, Y2, Y2

loop32:
	CMPQ CX, $32
	JL   loop16
	VPMOVSXBW (DI), Y1
	VPMADDWD (SI), Y1, Y1
	VPADDD Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y3
	VPMADDWD 32(SI), Y3, Y3
	VPADDD Y3, Y2, Y2
	ADDQ $32, DI
	ADDQ $64, SI
	SUBQ $32, CX
	JMP  loop32

loop16:
	CMPQ CX, $16
	JL   reduce
	VPMOVSXBW (DI), Y1
	VPMADDWD (SI), Y1, Y1
	VPADDD Y1, Y0, Y0
	ADDQ $16, DI
	ADDQ $32, SI
	SUBQ $16, CX
	JMP  loop16

reduce:
	VPADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPHADDD X0, X0, X0
	VPHADDD X0, X0, X0
	VZEROUPPER
	MOVL X0, ret+24(FP)
	RET

// func dotI8BatchAVX2(q *int16, v *int8, n int, rows int, out *int32)
// The kernel above over rows consecutive rows of n int8 each (n a
// multiple of 16), one int32 per row into out: one call per block of
// rows instead of one per row.
TEXT ·dotI8BatchAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R9

row:
	CMPQ R8, $0
	JE   bdone
	MOVQ SI, R10
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y2, Y2, Y2

bloop32:
	CMPQ CX, $32
	JL   bloop16
	VPMOVSXBW (DI), Y1
	VPMADDWD (R10), Y1, Y1
	VPADDD Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y3
	VPMADDWD 32(R10), Y3, Y3
	VPADDD Y3, Y2, Y2
	ADDQ $32, DI
	ADDQ $64, R10
	SUBQ $32, CX
	JMP  bloop32

bloop16:
	CMPQ CX, $16
	JL   breduce
	VPMOVSXBW (DI), Y1
	VPMADDWD (R10), Y1, Y1
	VPADDD Y1, Y0, Y0
	ADDQ $16, DI
	ADDQ $32, R10
	SUBQ $16, CX
	JMP  bloop16

breduce:
	VPADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPHADDD X0, X0, X0
	VPHADDD X0, X0, X0
	MOVL X0, (R9)
	ADDQ $4, R9
	DECQ R8
	JMP  row

bdone:
	VZEROUPPER
	RET
