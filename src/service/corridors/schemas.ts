/** The corridor list's wire shapes are shared with the clients: they live in src/contracts/wire. */
export * from '../../contracts/wire/corridors.js';
export { LockType } from '../../contracts/wire/vocabulary.js';
