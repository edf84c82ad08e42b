// The web example of docs/client-typescript.md, verbatim below the marker (TypeScriptClientTests checks that the
// doc's block is this text, and compiles it). What the page itself would define is declared here.
declare function render(user: unknown): void;
declare function showError(code: string): void;
export {};

// --- docs/client-typescript.md: A web app ---
import { BrokerAuth, BrokerError, SecondFactorRequiredError, browserStorage } from "@social-login-broker/client";

const auth = await BrokerAuth.create({
  baseUrl: "https://auth.example.com",
  storage: browserStorage(localStorage),       // auto-login at the next visit
});

auth.onAuthStateChanged((user) => render(user)); // called at once, then on each change

// Google Identity Services hands the page an ID token:
async function onGoogleCredential(response: { credential: string }) {
  try {
    const { user, isNewUser } = await auth.signInWithProvider("google", { idToken: response.credential });
  } catch (error) {
    if (error instanceof SecondFactorRequiredError) {
      const code = prompt("The code of your authenticator app") ?? "";
      await auth.completeSecondFactor(error.pendingCredential, { factorId: error.factors[0].factorId, code });
    } else if (error instanceof BrokerError) {
      showError(error.code);                     // "INVALID_TOKEN", "TOO_MANY_ATTEMPTS", ...
    }
  }
}

// Calls to the app's own back end carry the broker's ID token, fresh:
const response = await fetch("/api/orders", { headers: { Authorization: `Bearer ${await auth.getIdToken()}` } });
