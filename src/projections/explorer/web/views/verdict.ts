/**
 * A receipt's verdict as the explorer names and colours it: allow, deny, cancelled, incomplete, or
 * observation (a trace observation or advisory evaluation carries no decision). The colour is
 * never the only signal: the word is always shown.
 * Owns: verdict names and badges. Imports the DOM helper.
 */
import { el } from '../dom.js';

export interface ReceiptLike {
  id: string;
  timestamp: number;
  tool_server: string;
  tool_name: string;
  receipt_kind: string;
  decision?: { verdict: string; reason?: string; guard?: string };
}

export function verdictOf(r: ReceiptLike): string {
  const v = r.decision?.verdict;
  return typeof v === 'string' && /^(allow|deny|cancelled|incomplete)$/.test(v) ? v : 'observation';
}

export const badge = (verdict: string) => el('span', { class: `badge v-${verdict}` }, verdict);
