// bolt11, the embedded node's BOLT11 encoder, signer and decoder, with bitcoinjs-lib and lodash under it (some 230
// CommonJS files). Bundled into one file at build (docs/architecture.md, "Packages bundled at build"); its native
// secp256k1 addon stays outside the bundle and loads from node_modules.
export { decode, encode, sign } from 'bolt11'
