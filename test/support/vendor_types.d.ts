// Declarations for test libraries that ship no types; only what the tests call.

declare module "@digitalbazaar/vc-bitstring-status-list" {
  export class BitstringStatusList {
    static decode(options: { encodedList: string }): Promise<BitstringStatusList>;
    readonly length: number;
    getStatus(index: number): boolean;
  }
  /** The status of a credential's `credentialStatus` entries, read from the lists they name. */
  export function checkStatus(options: object): Promise<{ verified: boolean; error?: Error }>;
}

declare module "png-chunks-extract" {
  /** The chunks of a PNG, in order; throws on a bad signature or CRC. */
  export default function extract(data: Uint8Array): { name: string; data: Uint8Array }[];
}
