/** The CLI's name for the state folder's API call (src/api/state-dir-api.ts): commands and library flows share it. */
export { stateDirApi as sandboxApi } from '../api/state-dir-api.js';
