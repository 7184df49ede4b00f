/**
 * Why `coffer demo-x402` did not start, as a value: a stable code for scripts and tests, and a message
 * for a person. Nothing was started, and nothing the refusal names was touched.
 */
export type DemoRefusalCode =
  /** The seller's port is taken (another demo, or anything else). */
  | 'port_in_use'
  /** --data-dir names a folder that is neither new, empty, nor one this demo made. */
  | 'data_dir_not_demo'
  /** Another demo runs on that folder now. */
  | 'data_dir_in_use'
  /** LiteSVM, which the local cluster runs on, has no build for this machine. */
  | 'local_chain_unavailable';

export interface DemoRefusal {
  ok: false;
  code: DemoRefusalCode;
  message: string;
}

export const refuse = (code: DemoRefusalCode, message: string): DemoRefusal => ({ ok: false, code, message });
