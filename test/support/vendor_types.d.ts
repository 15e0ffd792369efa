// Declarations for test libraries that ship no types; only what the tests call.

declare module "@digitalbazaar/vc-bitstring-status-list" {
  export class BitstringStatusList {
    static decode(options: { encodedList: string }): Promise<BitstringStatusList>;
    readonly length: number;
    getStatus(index: number): boolean;
  }
}
