/** An identity linked to the account (contract section 2). */
export interface Identity {
  provider: string;
  subject: string;
  email: string | null;
  linkedAt: string | null;
}

/** The signed-in user: the `user` of a session body and of `GET /v1/me`. */
export interface User {
  uid: string;
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  photoUrl: string | null;
  isAnonymous: boolean;
  disabled: boolean;
  identities: Identity[];
  createdAt: string | null;
  lastSignInAt: string | null;
  customClaims?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** What a sign-in answers the app (the tokens stay inside the client: `getIdToken()` hands the ID token out). */
export interface SignInResult {
  user: User;
  isNewUser: boolean;
  /** A Firebase custom token, when the broker has a service account (contract section 3). */
  customToken: string | null;
}

/**
 * What a provider's SDK gave the app (contract section 2): an ID token (Apple's identity token), or an access
 * token (Kakao, Naver, LINE), with the raw nonce when the token carries its hash.
 */
export interface ProviderCredential {
  idToken?: string;
  accessToken?: string;
  rawNonce?: string;
  /** Apple's first authorization only: the name it gives once. */
  fullName?: { givenName?: string; middleName?: string; familyName?: string };
  /** Apple's authorization code (kept for revocation at deletion, contract section 10). */
  authorizationCode?: string;
}

/** The second step of a held sign-in: a TOTP code of a factor, or a recovery code. */
export type SecondFactorAnswer = { factorId: string; code: string } | { recoveryCode: string };

/** An enrolled second factor. */
export interface SecondFactor {
  factorId: string;
  type: string;
  displayName: string | null;
  enrolledAt: string | null;
  [field: string]: unknown;
}

/** A TOTP enrolment in progress: show `otpauthUri` as a QR code, then `verifyTotp(enrollmentId, code)`. */
export interface TotpEnrolment {
  enrollmentId: string;
  secret: string;
  otpauthUri: string;
  digits: number;
  periodSeconds: number;
  expiresAt: string;
}

/** A registered passkey (contract section 15). */
export interface Passkey {
  id: string;
  name: string | null;
  [field: string]: unknown;
}
