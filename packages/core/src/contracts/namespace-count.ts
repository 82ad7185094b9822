export interface NamespaceCount {
  namespace: string;
  tenant: string;
  count: number;
}
