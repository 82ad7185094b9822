import type { ScanOptions } from './scan-page';

/** Options of the optional `MemoryBackend.scanAttributes`. */
export interface AttributeScanOptions extends Omit<ScanOptions, 'withVectors'> {
  /**
   * The attributes the caller needs (decay: importance, last access, type).
   * A backend may return just these (those missing or null left out) or all
   * of them; omitted: all.
   */
  attributes?: readonly string[];
}
