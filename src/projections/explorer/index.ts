/** The web explorer (DESIGN §12): its files served beside the audit API by `chio serve`. */
export { explorerSite } from './site.js';
