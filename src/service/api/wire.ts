/** Wire primitives shared by every module's schemas; defined in src/contracts so clients read the same ones. */
export {
  Address,
  ChainId,
  HexBytes,
  IsoTimestamp,
  PositiveUintString,
  UintString,
  checksummed,
  isoTime,
  nonBlankText,
} from '../../contracts/wire/primitives.js';
