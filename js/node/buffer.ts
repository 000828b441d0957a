// `node:buffer` (and `buffer`): `Buffer`, the same class as the global (js/host/buffer.ts, loaded
// through the global so there is one copy), plus the byte helpers Node keeps here.

const { Buffer } = globalThis as unknown as { Buffer: typeof import("../host/buffer.ts").Buffer };

export { Buffer };
export const atob = globalThis.atob;
export const btoa = globalThis.btoa;
export const constants = { MAX_LENGTH: 2 ** 32, MAX_STRING_LENGTH: 2 ** 29 - 24 };
export const kMaxLength = constants.MAX_LENGTH;
export default { Buffer, atob, btoa, constants, kMaxLength };
