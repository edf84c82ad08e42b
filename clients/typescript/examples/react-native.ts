// The React Native example of docs/client-typescript.md, verbatim below the marker (TypeScriptClientTests checks
// that the doc's block is this text, and compiles it). The app's own modules are declared in modules.d.ts.
export {};

// --- docs/client-typescript.md: A React Native app ---
import AsyncStorage from "@react-native-async-storage/async-storage";
import * as Crypto from "expo-crypto";
import { login } from "@react-native-seoul/kakao-login";
import { BrokerAuth, asyncStorage } from "@social-login-broker/client";

const auth = await BrokerAuth.create({
  baseUrl: "https://auth.example.com",
  storage: asyncStorage(AsyncStorage),
  // React Native has no Web Crypto: the app passes the crypto module it already uses.
  crypto: {
    sha256: async (data) =>
      new Uint8Array(await Crypto.digest(Crypto.CryptoDigestAlgorithm.SHA256, data)),
    randomBytes: (count) => Crypto.getRandomBytes(count),
  },
  // And, for passkeys, an adapter over its passkey module: create(optionsJSON) and get(optionsJSON), answering
  // WebAuthn's RegistrationResponseJSON and AuthenticationResponseJSON.
});

const kakao = await login();                     // Kakao's SDK signs the user in
await auth.signInWithProvider("kakao", { accessToken: kakao.accessToken });
