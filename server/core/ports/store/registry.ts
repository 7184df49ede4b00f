/** Port: the registry of payable services and image models (read-only to the core). */
export interface ServiceRecord {
  id: string;
  name: string;
  description: string;
  category: string;
  /** Resolution prices ("1k", "2k", "4k") as decimal strings; empty for per-call APIs. */
  pricing: Record<string, string>;
  /** Price of one call as a decimal string, for per-call APIs. */
  pricePerCall: string | null;
  endpoint: string;
  source: 'svc-native' | 'model-registry' | 'x402-marketplace';
  payTo: string;
  network: string;
}

export interface ModelRecord {
  id: string;
  displayName: string;
  provider: string;
  description: string;
  pricing: Record<string, string>;
  enabled: boolean;
}

export interface RegistryStore {
  /** Ranked matches; `total` counts them up to a cap (`totalIsCapped` beyond). */
  searchServices(query: string, limit: number): { results: ServiceRecord[]; total: number; totalIsCapped: boolean };
  getService(id: string): ServiceRecord | null;
  servicesPaidTo(payTo: string): ServiceRecord[];
  listModels(): ModelRecord[];
  getModel(id: string): ModelRecord | null;
}
