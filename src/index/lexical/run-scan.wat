;; The SIMD scan behind matcher.ts' runLineStarts (see run-scan.ts): findRun(start, end, len)
;; answers where the first run of `len` or more class bytes in memory [start, end) begins (a run
;; counts only bytes from `start` on), or -1. The class is two 16-byte tables at 0 and 16, indexed
;; by a byte's low nibble, whose bits say which high nibbles are in it (bytes below 0x80, then
;; from 0x80), and 1 << i at 32 + i. 64 bytes a step: a class mask by two swizzles per 16, then the
;; runs from the mask's bits, carried across steps. It reads up to 63 bytes past `end`: the memory
;; there must exist (not be in the class: those bits are cleared).
;; Also plainLines (the lines holding a literal, by its first and last byte 16 places a step) and
;; countNewlines (16 bytes a step), below.
;; Rebuild run-scan-module.ts with scripts/build-run-scan.sh (wat2wasm, Debian's wabt).
(module
  (memory (export "memory") 1)
  (func $findRun (export "findRun") (param $start i32) (param $end i32) (param $len i32) (result i32)
    (local $p i32) (local $carry i32) (local $t i32) (local $cover i32) (local $step i32)
    (local $m i64) (local $x i64)
    (local $v v128) (local $tlo v128) (local $thi v128) (local $bits v128)
    (local $nibble v128) (local $seven v128) (local $zero v128)
    (local.set $tlo (v128.load (i32.const 0)))
    (local.set $thi (v128.load (i32.const 16)))
    (local.set $bits (v128.load (i32.const 32)))
    (local.set $nibble (i8x16.splat (i32.const 15)))
    (local.set $seven (i8x16.splat (i32.const 7)))
    (local.set $zero (v128.const i32x4 0 0 0 0))
    (local.set $p (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        ;; bit i: byte p + i is in the class (64 bytes: four 16-byte masks)
        (local.set $m (i64.or
          (i64.or
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=0 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=16 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 16)))
          (i64.or
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=32 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 32))
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=48 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 48)))))
        ;; bytes past the end are not
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 64))
          (then (local.set $m (i64.and (local.get $m)
            (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $end) (local.get $p)))) (i64.const 1))))))
        (if (i64.eqz (local.get $m))
          (then (local.set $carry (i32.const 0)))
          (else
            (if (i64.eq (local.get $m) (i64.const -1))
              (then
                (local.set $carry (i32.add (local.get $carry) (i32.const 64)))
                (if (i32.ge_u (local.get $carry) (local.get $len))
                  (then (return (i32.sub (i32.add (local.get $p) (i32.const 64)) (local.get $carry))))))
              (else
                ;; the run from the block's first byte, joined to the one before it
                (local.set $t (i32.wrap_i64 (i64.ctz (i64.xor (local.get $m) (i64.const -1)))))
                (if (i32.ge_u (i32.add (local.get $carry) (local.get $t)) (local.get $len))
                  (then (return (i32.sub (local.get $p) (local.get $carry)))))
                ;; runs inside the block: bit i of x when bytes i .. i+len-1 all are (shifts that double the cover)
                (if (i32.le_u (local.get $len) (i32.const 64))
                  (then
                    (local.set $x (local.get $m))
                    (local.set $cover (i32.const 1))
                    (block $covered
                      (loop $widen
                        (br_if $covered (i32.ge_u (local.get $cover) (local.get $len)))
                        (br_if $covered (i64.eqz (local.get $x)))
                        (local.set $step (select (local.get $cover) (i32.sub (local.get $len) (local.get $cover))
                          (i32.le_u (local.get $cover) (i32.sub (local.get $len) (local.get $cover)))))
                        (local.set $x (i64.and (local.get $x) (i64.shr_u (local.get $x) (i64.extend_i32_u (local.get $step)))))
                        (local.set $cover (i32.add (local.get $cover) (local.get $step)))
                        (br $widen)))
                    (if (i64.ne (local.get $x) (i64.const 0))
                      (then (return (i32.add (local.get $p) (i32.wrap_i64 (i64.ctz (local.get $x)))))))))
                ;; the run reaching the block's last byte goes on into the next block
                (local.set $carry (i32.wrap_i64 (i64.clz (i64.xor (local.get $m) (i64.const -1)))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $next)))
    (i32.const -1))

  ;; lineStarts(start, end, len, out, cap): the start of each line in [start, end) holding a run
  ;; (where findRun finds one, then on from the next line), written to out as i32s, at most cap of
  ;; them; answers how many. Where it stopped (end, or the next line to look at when out is full)
  ;; is left at 48.
  (func (export "lineStarts") (param $start i32) (param $end i32) (param $len i32) (param $out i32) (param $cap i32) (result i32)
    (local $from i32) (local $at i32) (local $n i32) (local $edge i32)
    (local.set $from (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $from) (local.get $end)))
        (br_if $done (i32.ge_u (local.get $n) (local.get $cap)))
        (local.set $at (call $findRun (local.get $from) (local.get $end) (local.get $len)))
        (if (i32.lt_s (local.get $at) (i32.const 0))
          (then (local.set $from (local.get $end)) (br $done)))
        ;; back to the line's start (lines begin at `from` or after a newline)
        (local.set $edge (local.get $at))
        (block $back
          (loop $left
            (br_if $back (i32.le_u (local.get $edge) (local.get $from)))
            (br_if $back (i32.eq (i32.load8_u (i32.sub (local.get $edge) (i32.const 1))) (i32.const 10)))
            (local.set $edge (i32.sub (local.get $edge) (i32.const 1)))
            (br $left)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $edge))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        ;; on past the line's end
        (local.set $edge (local.get $at))
        (block $forth
          (loop $right
            (br_if $forth (i32.ge_u (local.get $edge) (local.get $end)))
            (br_if $forth (i32.eq (i32.load8_u (local.get $edge)) (i32.const 10)))
            (local.set $edge (i32.add (local.get $edge) (i32.const 1)))
            (br $right)))
        (local.set $from (i32.add (local.get $edge) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 48) (local.get $from))
    (local.get $n))

  ;; plainLines(start, end, needle, len, word, out, cap): the lines in [start, end) holding the
  ;; needle (`len` bytes at `needle`, 1 to 256), each once, in order, as four i32s at out: the
  ;; line's start; its end (its '\n', or `end`); the occurrence's offset (when `word`, the first
  ;; whole-word one: ASCII neighbours not letters, digits or '_'), or -1 when a neighbour of an
  ;; occurrence is not ASCII (the caller's regex decides), plus 1 << 30 when a byte before it on the
  ;; line is not ASCII; and the newlines in [start, the line's start). At most cap lines; answers
  ;; how many; where it stopped (the next line to look at when out is full) is left at 48.
  ;; Candidates by the first and the last byte of the needle, 16 places a step (two compares), then
  ;; byte by byte. Reads up to 15 bytes past `end`. Text where most places are candidates that
  ;; fail (a needle like a…ab…a in a run of a's) would cost a compare of the needle per byte: past
  ;; 4,096 failed candidates and one per 16 bytes scanned it gives up, leaving 1 at 52 and at 48
  ;; the place to go on from (no occurrence on its line starts before it), for a search that
  ;; skips ahead.
  (func (export "plainLines") (param $start i32) (param $end i32) (param $needle i32) (param $len i32) (param $word i32) (param $out i32) (param $cap i32) (result i32)
    (local $p i32) (local $last i32) (local $m i32) (local $q i32) (local $n i32)
    (local $lineStart i32) (local $lineEnd i32) (local $at i32) (local $k i32)
    (local $before i32) (local $after i32) (local $nl i32) (local $counted i32) (local $fails i32)
    (local $first v128) (local $final v128)
    (i32.store (i32.const 52) (i32.const 0))
    (local.set $first (i8x16.splat (i32.load8_u (local.get $needle))))
    (local.set $final (i8x16.splat (i32.load8_u (i32.add (local.get $needle) (i32.sub (local.get $len) (i32.const 1))))))
    ;; the last place an occurrence can start
    (local.set $last (i32.sub (local.get $end) (local.get $len)))
    (local.set $p (local.get $start))
    (local.set $counted (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $p) (local.get $last)))
        (br_if $done (i32.ge_u (local.get $n) (local.get $cap)))
        (local.set $m (i8x16.bitmask (v128.and
          (i8x16.eq (v128.load (local.get $p)) (local.get $first))
          (i8x16.eq (v128.load (i32.add (local.get $p) (i32.sub (local.get $len) (i32.const 1)))) (local.get $final)))))
        ;; places past the last are not
        (if (i32.lt_u (i32.sub (local.get $last) (local.get $p)) (i32.const 15))
          (then (local.set $m (i32.and (local.get $m)
            (i32.sub (i32.shl (i32.const 2) (i32.sub (local.get $last) (local.get $p))) (i32.const 1))))))
        (block $miss
          (loop $bits
            (br_if $miss (i32.eqz (local.get $m)))
            (local.set $q (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (if (i32.eqz (call $same (local.get $q) (local.get $needle) (local.get $len)))
              (then
                (local.set $fails (i32.add (local.get $fails) (i32.const 1)))
                (if (i32.gt_u (local.get $fails) (i32.add (i32.const 4096) (i32.shr_u (i32.sub (local.get $p) (local.get $start)) (i32.const 4))))
                  (then (i32.store (i32.const 52) (i32.const 1)) (br $done)))
                (br $bits)))
            ;; an occurrence at q: its line's start (lines begin at `start` or after a newline) ...
            (local.set $lineStart (local.get $q))
            (block $back
              (loop $left
                (br_if $back (i32.le_u (local.get $lineStart) (local.get $start)))
                (br_if $back (i32.eq (i32.load8_u (i32.sub (local.get $lineStart) (i32.const 1))) (i32.const 10)))
                (local.set $lineStart (i32.sub (local.get $lineStart) (i32.const 1)))
                (br $left)))
            ;; ... and end
            (local.set $lineEnd (i32.add (local.get $q) (local.get $len)))
            (block $forth
              (loop $right
                (br_if $forth (i32.ge_u (local.get $lineEnd) (local.get $end)))
                (br_if $forth (i32.eq (i32.load8_u (local.get $lineEnd)) (i32.const 10)))
                (local.set $lineEnd (i32.add (local.get $lineEnd) (i32.const 1)))
                (br $right)))
            (local.set $at (local.get $q))
            (if (local.get $word)
              (then
                (block $decided
                  (loop $try
                    (local.set $before (select (i32.load8_u (i32.sub (local.get $at) (i32.const 1))) (i32.const 32)
                      (i32.gt_u (local.get $at) (local.get $lineStart))))
                    (local.set $after (select (i32.load8_u (i32.add (local.get $at) (local.get $len))) (i32.const 32)
                      (i32.lt_u (i32.add (local.get $at) (local.get $len)) (local.get $lineEnd))))
                    (if (i32.ge_u (i32.or (local.get $before) (local.get $after)) (i32.const 128))
                      (then (local.set $at (i32.const -1)) (br $decided)))
                    (br_if $decided (i32.eqz (i32.or (call $isWord (local.get $before)) (call $isWord (local.get $after)))))
                    ;; the next occurrence on the line, if any (-2: none)
                    (local.set $k (i32.add (local.get $at) (i32.const 1)))
                    (local.set $at (i32.const -2))
                    (block $seen
                      (loop $scan
                        (br_if $seen (i32.gt_u (i32.add (local.get $k) (local.get $len)) (local.get $lineEnd)))
                        (if (call $same (local.get $k) (local.get $needle) (local.get $len))
                          (then (local.set $at (local.get $k)) (br $seen)))
                        (local.set $k (i32.add (local.get $k) (i32.const 1)))
                        (br $scan)))
                    (br_if $decided (i32.eq (local.get $at) (i32.const -2)))
                    (br $try)))))
            (if (i32.ne (local.get $at) (i32.const -2))
              (then
                ;; a byte before the occurrence that is not ASCII: the caller counts the column
                (if (i32.ge_s (local.get $at) (i32.const 0))
                  (then
                    (local.set $k (local.get $lineStart))
                    (block $plain
                      (loop $prefix
                        (br_if $plain (i32.ge_u (local.get $k) (local.get $at)))
                        (if (i32.ge_u (i32.load8_u (local.get $k)) (i32.const 128))
                          (then (local.set $at (i32.or (local.get $at) (i32.const 0x40000000))) (br $plain)))
                        (local.set $k (i32.add (local.get $k) (i32.const 1)))
                        (br $prefix)))))
                (local.set $nl (i32.add (local.get $nl) (call $countNewlines (local.get $counted) (local.get $lineStart))))
                (local.set $counted (local.get $lineStart))
                (local.set $k (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 4))))
                (i32.store offset=0 (local.get $k) (local.get $lineStart))
                (i32.store offset=4 (local.get $k) (local.get $lineEnd))
                (i32.store offset=8 (local.get $k) (local.get $at))
                (i32.store offset=12 (local.get $k) (local.get $nl))
                (local.set $n (i32.add (local.get $n) (i32.const 1)))))
            ;; on from the next line
            (local.set $p (i32.add (local.get $lineEnd) (i32.const 1)))
            (br $next)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $next)))
    (i32.store (i32.const 48) (local.get $p))
    (local.get $n))

  ;; same(at, needle, len): whether the len bytes at `at` are the needle's.
  (func $same (param $at i32) (param $needle i32) (param $len i32) (result i32)
    (local $k i32)
    (block $differ
      (loop $each
        (br_if $differ (i32.ge_u (local.get $k) (local.get $len)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $at) (local.get $k))) (i32.load8_u (i32.add (local.get $needle) (local.get $k))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
    (i32.const 1))

  ;; isWord(byte): an ASCII letter, digit or '_'.
  (func $isWord (param $b i32) (result i32)
    (i32.or
      (i32.or
        (i32.lt_u (i32.sub (local.get $b) (i32.const 48)) (i32.const 10))
        (i32.lt_u (i32.sub (i32.or (local.get $b) (i32.const 32)) (i32.const 97)) (i32.const 26)))
      (i32.eq (local.get $b) (i32.const 95))))

  ;; countNewlines(start, end): how many '\n' bytes are in [start, end). 16 bytes a step: each
  ;; lane counts its newlines (a byte, flushed to the total every 255 steps).
  (func $countNewlines (export "countNewlines") (param $start i32) (param $end i32) (result i32)
    (local $p i32) (local $n i32) (local $k i32) (local $acc v128) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $p (local.get $start))
    (block $done
      (loop $outer
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $flush
          (loop $inner
            (br_if $flush (i32.ge_u (local.get $k) (i32.const 255)))
            (br_if $flush (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
            ;; a newline lane compares to -1: subtracting adds one
            (local.set $acc (i8x16.sub (local.get $acc) (i8x16.eq (v128.load (local.get $p)) (local.get $nl))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $inner)))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (local.set $n (i32.add (local.get $n)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
        (br $outer)))
    ;; the last bytes, one at a time
    (block $tail
      (loop $rest
        (br_if $tail (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $rest)))
    (local.get $n))
)
