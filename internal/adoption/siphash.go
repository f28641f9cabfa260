package adoption

import "math/bits"

// sipHash16 is SipHash-2-4 (Aumasson and Bernstein, 2012) under the key
// k0, k1 of a 16-byte message whose little-endian halves are m0 and m1: a
// pseudorandom function with a 128-bit key, made for short inputs. It
// hashes a client in tens of nanoseconds, where SHA-256 or an HMAC took
// hundreds on the loaded benchmark machine (docs/BENCHMARKS.md, "What
// each mechanism buys": counting each fetch's distinct client).
func sipHash16(k0, k1, m0, m1 uint64) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	// The two message words, then the last block: the length (16) in
	// the top byte and no message bytes left.
	for _, m := range [3]uint64{m0, m1, 16 << 56} {
		v3 ^= m
		round()
		round()
		v0 ^= m
	}
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}
