// The parts of the React Native modules the example uses, as their packages declare them (the example is
// type-checked here without them installed).
declare module "@react-native-async-storage/async-storage" {
  const AsyncStorage: {
    getItem(key: string): Promise<string | null>;
    setItem(key: string, value: string): Promise<void>;
    removeItem(key: string): Promise<void>;
  };
  export default AsyncStorage;
}

declare module "expo-crypto" {
  export enum CryptoDigestAlgorithm {
    SHA256 = "SHA-256",
  }
  export function digest(algorithm: CryptoDigestAlgorithm, data: BufferSource): Promise<ArrayBuffer>;
  export function getRandomBytes(count: number): Uint8Array;
}

declare module "@react-native-seoul/kakao-login" {
  export function login(): Promise<{ accessToken: string; idToken?: string }>;
}
