export type { ScanMemo, StoreContext } from './store-context';
