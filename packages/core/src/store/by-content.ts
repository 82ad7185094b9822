/**
 * Values by namespace and content hash: a batch's duplicate keys without a `namespace\u0000hash`
 * string a memory (a batch's strings and objects live through the whole `rememberMany`, and every
 * young-generation collection copies them again). The first value added for a key is kept.
 */
export class ByContent<T> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  get(namespace: string, hash: string): T | undefined {
    return this.byNamespace.get(namespace)?.get(hash);
  }

  add(namespace: string, hash: string, value: T): void {
    let hashes = this.byNamespace.get(namespace);
    if (!hashes) {
      hashes = new Map();
      this.byNamespace.set(namespace, hashes);
    }
    if (!hashes.has(hash)) hashes.set(hash, value);
  }
}
