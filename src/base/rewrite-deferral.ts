// When a large index's cache file is worth writing again. The chunk ranking's chunks.bin and the
// code graph's graph.bin are written whole (the kernel's: ~500 MB each, seconds of the daemon's
// time), while a restart redoes only the files whose content hash changed since the file was
// written (well under a second for a few). So past a size an index writes its file again only once
// enough of its files changed since; below it, at every save.

/** Up to `above` (the index's own unit: chunks, files) every save writes; past it, once `staleFiles` files (or 1% of them) changed. */
export interface RewriteDeferral {
  above: number;
  staleFiles: number;
}

export function rewriteDue(deferral: RewriteDeferral, size: number, files: number, staleFiles: number): boolean {
  return size <= deferral.above || staleFiles >= Math.max(deferral.staleFiles, files / 100);
}
