// The keyed mask applied to everything of an index that may leave the machine (an export, a shared
// store): each path segment becomes a keyed hash (HMAC-SHA256), so `src/payments/invoice_processor.py`
// becomes something like `k3d9ua2q/x72kpe4m/qp1m8dzc.f4b`: the folder structure and the place of
// the extension survive (filters and grouping still work on masked paths), the names do not. The
// same segment masks the same everywhere under one key; another key gives unrelated masks. Terms
// are hashed with the same key, so a store reveals neither paths nor identifiers, only shapes and
// frequencies. Masking is one-way: a holder of the key maps masks back by masking the paths it
// has (`PathUnmasker`), so local results always show real paths.
import { createHmac } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer, characters: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < characters) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= characters) break;
  }
  return out;
}

export class PathMask {
  /** A short public name of the key (to tell stores made with another key apart); reveals nothing of it. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('a mask key needs at least 16 bytes');
    this.keyId = this.hmac('key-id').subarray(0, 6).toString('hex');
  }

  private hmac(text: string): Buffer {
    return createHmac('sha256', this.key).update(text).digest();
  }

  /** One folder or file-name segment (8 characters of base32: 40 bits). */
  segment(name: string): string {
    return base32(this.hmac(`segment\0${name}`), 8);
  }

  /** A path, segment by segment; a file name's extension is masked on its own (3 characters) after a dot. */
  mask(path: string): string {
    const segments = path.split('/');
    const last = segments.pop() ?? '';
    const dot = last.lastIndexOf('.');
    const name =
      dot > 0 && dot < last.length - 1
        ? `${this.segment(last.slice(0, dot))}.${base32(this.hmac(`extension\0${last.slice(dot + 1)}`), 3)}`
        : this.segment(last);
    return [...segments.map((segment) => this.segment(segment)), name].join('/');
  }

  /** A term of the index (11 characters of base32: 55 bits). */
  term(term: string): string {
    return base32(this.hmac(`term\0${term}`), 11);
  }
}

/** Masked paths back to the real paths this machine holds. */
export class PathUnmasker {
  private readonly real = new Map<string, string>();

  constructor(mask: PathMask, localPaths: Iterable<string>) {
    for (const path of localPaths) this.real.set(mask.mask(path), path);
  }

  /** The real path, or undefined for a file this machine does not hold. */
  unmask(masked: string): string | undefined {
    return this.real.get(masked);
  }
}
