// Typed arrays to and from the bytes a cache file stores them as: a view of an array's bytes (no
// copy), and an aligned copy back (msgpack and record readers hand out views at any offset, and a
// Uint32Array needs 4-byte alignment). A byte count that is not a whole number of elements throws.
type TypedArrayConstructor<T> = { new (buffer: ArrayBuffer): T; readonly BYTES_PER_ELEMENT: number; readonly name: string };

export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

export function typedCopy<T>(bytes: Uint8Array, type: TypedArrayConstructor<T>): T {
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) throw new Error(`${bytes.byteLength} bytes are not a whole ${type.name}`);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new type(copy.buffer);
}
