;; The SIMD prefilter behind secret-prefilter.ts: scan(start, end) answers the first place in
;; memory [start, end) where a three-byte fingerprint of some secret's literal may begin, or -1.
;; Fingerprints are put in up to eight buckets (one bit each), as Hyperscan's Teddy does: for
;; each of the three bytes, two 16-byte tables at 0 (low nibble, byte 0), 16 (high nibble,
;; byte 0), 32 and 48 (byte 1), 64 and 80 (byte 2) say which buckets hold a fingerprint with
;; that nibble there. A place is a candidate when some bucket has all six nibbles: two swizzles a
;; byte position, whatever the number of fingerprints; the caller checks candidates exactly.
;; 32 places a step; it reads up to 50 bytes past `end` (the memory there must exist; what it
;; holds only makes candidates past `end`, which are not answered).
;; Rebuild secret-prefilter-module.ts with scripts/build-secret-prefilter.sh (wat2wasm, Debian's wabt).
(module
  (memory (export "memory") 1)
  (func $scan (export "scan") (param $p i32) (param $end i32) (result i32)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128) (local $lo2 v128) (local $hi2 v128)
    (local $nibble v128) (local $zero v128) (local $a v128) (local $b v128) (local $v v128)
    (local $q i32)
    (local.set $lo0 (v128.load (i32.const 0)))
    (local.set $hi0 (v128.load (i32.const 16)))
    (local.set $lo1 (v128.load (i32.const 32)))
    (local.set $hi1 (v128.load (i32.const 48)))
    (local.set $lo2 (v128.load (i32.const 64)))
    (local.set $hi2 (v128.load (i32.const 80)))
    (local.set $nibble (i8x16.splat (i32.const 15)))
    (local.set $zero (v128.const i32x4 0 0 0 0))
    (block $none
      (loop $next
        (br_if $none (i32.ge_u (local.get $p) (local.get $end)))
        ;; places p .. p + 15
        (local.set $a (v128.and
          (v128.and
            (v128.and
              (i8x16.swizzle (local.get $lo0) (v128.and (local.tee $v (v128.load offset=0 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4))))
            (v128.and
              (i8x16.swizzle (local.get $lo1) (v128.and (local.tee $v (v128.load offset=1 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4)))))
          (v128.and
            (i8x16.swizzle (local.get $lo2) (v128.and (local.tee $v (v128.load offset=2 (local.get $p))) (local.get $nibble)))
            (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        ;; places p + 16 .. p + 31
        (local.set $b (v128.and
          (v128.and
            (v128.and
              (i8x16.swizzle (local.get $lo0) (v128.and (local.tee $v (v128.load offset=16 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4))))
            (v128.and
              (i8x16.swizzle (local.get $lo1) (v128.and (local.tee $v (v128.load offset=17 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4)))))
          (v128.and
            (i8x16.swizzle (local.get $lo2) (v128.and (local.tee $v (v128.load offset=18 (local.get $p))) (local.get $nibble)))
            (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (if (v128.any_true (v128.or (local.get $a) (local.get $b)))
          (then
            (local.set $q (i32.add (local.get $p) (i32.ctz (i32.or
              (i8x16.bitmask (i8x16.ne (local.get $a) (local.get $zero)))
              (i32.shl (i8x16.bitmask (i8x16.ne (local.get $b) (local.get $zero))) (i32.const 16))))))
            (return (select (local.get $q) (i32.const -1) (i32.lt_u (local.get $q) (local.get $end))))))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $next)))
    (i32.const -1))
)
