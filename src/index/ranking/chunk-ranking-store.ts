// A whole snapshot of a chunk ranking in records: the term table, every term's posting list, the
// chunk table and which chunks belong to which file with the SHA-256 of the content they were cut
// from; written and read whole. The export's format (index/export). It was chunks.bin's format 1;
// chunks.bin is now read where it lies (chunk-ranking-file.ts).
//
// File: base/checked-file.ts's container, magic "FTHMCRK1", written and read as records
// (CheckedFileWriter / readCheckedRecords, so neither holds the event loop for long):
//   record 0   msgpack { root, version (rankingVersion), budgetBytes, terms (count), chunks (count), files (count), postingRecords }
//   then       the terms in chunks of 65,536 (msgpack string arrays)
//   then       the posting lists: one record per 1 M u32 words or fewer, each msgpack
//              { lengths: u32 LE bytes (one per term in the record), data: u32 LE bytes (chunk id, packed counts pairs) }
//   then       the chunk table: four records of raw little-endian bytes: file ids (u32), lines (u32 pairs),
//              bytes (u32 pairs), field lengths (u16, five per chunk)
//   last       msgpack [path, hash (32 bytes), first chunk, chunk count][]: a chunk's file id is its
//              file's index in this list (0xffffffff: a chunk of no stored file, dead on load)
// An export (fathom/exportIndex, index/export/ranking-export.ts) is this format under the magic
// "FTHMXRK1", `root` = `key:<keyId>`, every path masked and every term hashed.
// Versions (`rankingFormatVersion`, one line per bump):
//   1  the first (chunks.bin's format until chunk-ranking-file.ts's FTHMCRK2; now the export's)
import { Packr } from 'msgpackr';
import { bytesOf, typedCopy } from '../../base/typed-bytes.js';
import { CheckedFileWriter, readCheckedRecords } from '../../base/checked-file.js';
import { breathe } from '../../base/event-loop.js';
import { releaseUnpackSource } from '../../base/unpack-source.js';
import { fieldCount } from './chunk-fields.js';

export const rankingFormatVersion = 1;
/** chunks.bin's magic; an export (index/export) uses the same format under its own. */
export const rankingMagic = 'FTHMCRK1';
const termsPerRecord = 65_536;
const wordsPerRecord = 1 << 20;
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

export interface RankingSnapshot {
  root: string;
  version: number;
  budgetBytes: number;
  terms: string[];
  postings: Uint32Array[];
  chunkFile: Uint32Array;
  chunkLines: Uint32Array;
  chunkBytes: Uint32Array;
  chunkLengths: Uint16Array;
  files: Array<{ path: string; hash: string; first: number; count: number }>;
}

interface StoredHeader {
  root: string;
  version: number;
  budgetBytes: number;
  terms: number;
  chunks: number;
  files: number;
  postingRecords: number;
}

export async function saveRanking(file: string, snapshot: RankingSnapshot, magic = rankingMagic): Promise<void> {
  // Group the posting lists into records of about a million words.
  const groups: Array<[number, number]> = [];
  for (let start = 0; start < snapshot.postings.length;) {
    let end = start;
    let words = 0;
    while (end < snapshot.postings.length && (end === start || words + snapshot.postings[end]!.length <= wordsPerRecord))
      words += snapshot.postings[end++]!.length;
    groups.push([start, end]);
    start = end;
  }
  const writer = await CheckedFileWriter.open(file, magic, rankingFormatVersion);
  try {
    const header: StoredHeader = {
      root: snapshot.root,
      version: snapshot.version,
      budgetBytes: snapshot.budgetBytes,
      terms: snapshot.terms.length,
      chunks: snapshot.chunkFile.length,
      files: snapshot.files.length,
      postingRecords: groups.length,
    };
    await writer.record(packr.pack(header));
    for (let at = 0; at < snapshot.terms.length; at += termsPerRecord) await writer.record(packr.pack(snapshot.terms.slice(at, at + termsPerRecord)));
    let last = performance.now();
    for (const [start, end] of groups) {
      const lists = snapshot.postings.slice(start, end);
      const lengths = Uint32Array.from(lists, (list) => list.length);
      const data = new Uint32Array(lengths.reduce((sum, length) => sum + length, 0));
      let at = 0;
      for (const list of lists) {
        data.set(list, at);
        at += list.length;
      }
      await writer.record(packr.pack({ lengths: bytesOf(lengths), data: bytesOf(data) }));
      if (performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    for (const array of [snapshot.chunkFile, snapshot.chunkLines, snapshot.chunkBytes, snapshot.chunkLengths]) await writer.record(bytesOf(array));
    await writer.record(packr.pack(snapshot.files.map((entry) => [entry.path, Buffer.from(entry.hash, 'hex'), entry.first, entry.count])));
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

export type RankingLoad = { status: 'valid'; snapshot: RankingSnapshot } | { status: 'missing' } | { status: 'corrupt'; reason: string };

/** Reads and checks a snapshot: lengths agree, every chunk id and file range points inside its table. */
export async function loadRanking(file: string, magic = rankingMagic): Promise<RankingLoad> {
  try {
    return await readRanking(file, magic);
  } finally {
    releaseUnpackSource();
  }
}

async function readRanking(file: string, magic: string): Promise<RankingLoad> {
  const read = await readCheckedRecords(file, magic, rankingFormatVersion);
  if (read.status !== 'valid') return read;
  try {
    const records = read.records;
    const header = packr.unpack(records[0]!) as StoredHeader;
    const termRecords = Math.ceil(header.terms / termsPerRecord);
    if (typeof header.root !== 'string' || records.length !== 1 + termRecords + header.postingRecords + 5)
      return { status: 'corrupt', reason: 'payload has the wrong shape' };
    let at = 1;
    const terms: string[] = [];
    for (; at <= termRecords; at++) for (const term of packr.unpack(records[at]!) as string[]) terms.push(term);
    if (terms.length !== header.terms) return { status: 'corrupt', reason: 'the term table has the wrong shape' };
    const postings: Uint32Array[] = [];
    let last = performance.now();
    for (let record = 0; record < header.postingRecords; record++, at++) {
      const stored = packr.unpack(records[at]!) as { lengths: Uint8Array; data: Uint8Array };
      const lengths = typedCopy(stored.lengths, Uint32Array);
      const data = typedCopy(stored.data, Uint32Array);
      let offset = 0;
      for (const length of lengths) {
        if (length % 2 !== 0 || offset + length > data.length) return { status: 'corrupt', reason: 'a posting list is cut short' };
        for (let word = offset; word < offset + length; word += 2)
          if (data[word]! >= header.chunks) return { status: 'corrupt', reason: 'a chunk id out of range' };
        postings.push(data.subarray(offset, offset + length));
        offset += length;
      }
      if (performance.now() - last > 20) {
        await breathe();
        last = performance.now();
      }
    }
    if (postings.length !== header.terms) return { status: 'corrupt', reason: 'posting lists and terms differ in number' };
    const chunkFile = typedCopy(records[at++]!, Uint32Array);
    const chunkLines = typedCopy(records[at++]!, Uint32Array);
    const chunkBytes = typedCopy(records[at++]!, Uint32Array);
    const chunkLengths = typedCopy(records[at++]!, Uint16Array);
    const chunks = header.chunks;
    if (chunkFile.length !== chunks || chunkLines.length !== 2 * chunks || chunkBytes.length !== 2 * chunks || chunkLengths.length !== fieldCount * chunks)
      return { status: 'corrupt', reason: 'the chunk table has the wrong shape' };
    const stored = packr.unpack(records[at]!) as Array<[string, Uint8Array, number, number]>;
    if (!Array.isArray(stored) || stored.length !== header.files) return { status: 'corrupt', reason: 'the file table has the wrong shape' };
    const files = stored.map(([path, hash, first, count]) => {
      if (
        typeof path !== 'string' ||
        hash.length !== 32 ||
        !Number.isInteger(first) ||
        !Number.isInteger(count) ||
        first < 0 ||
        count < 0 ||
        first + count > chunks
      )
        throw new Error(`${String(path)}: a chunk range out of the table`);
      return { path, hash: Buffer.from(hash).toString('hex'), first, count };
    });
    files.forEach((entry, index) => {
      for (let id = entry.first; id < entry.first + entry.count; id++)
        if (chunkFile[id] !== index) throw new Error(`${entry.path}: its chunks name another file`);
    });
    return {
      status: 'valid',
      snapshot: {
        root: header.root,
        version: header.version,
        budgetBytes: header.budgetBytes,
        terms,
        postings,
        chunkFile,
        chunkLines,
        chunkBytes,
        chunkLengths,
        files,
      },
    };
  } catch (error) {
    return { status: 'corrupt', reason: `payload does not decode: ${(error as Error).message}` };
  }
}
