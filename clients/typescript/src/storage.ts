/**
 * Where the session is kept between launches (auto-login). The app chooses: `browserStorage(localStorage)` on the
 * web, `asyncStorage(AsyncStorage)` on React Native, `new MemoryStorage()` for a session that ends with the page.
 * The value written is the session (ID token, refresh token, expiry, user) as JSON text.
 */
export interface SessionStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
}

/** A session kept in memory only: signed out when the process or page ends. */
export class MemoryStorage implements SessionStore {
  private readonly values = new Map<string, string>();

  async get(key: string): Promise<string | null> {
    return this.values.has(key) ? (this.values.get(key) as string) : null;
  }

  async set(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }

  async remove(key: string): Promise<void> {
    this.values.delete(key);
  }
}

/** What `localStorage` and `sessionStorage` have (the Web Storage API). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The Web Storage API (`localStorage`, `sessionStorage`) as a session store. */
export function browserStorage(storage: WebStorageLike): SessionStore {
  return {
    async get(key) {
      return storage.getItem(key);
    },
    async set(key, value) {
      storage.setItem(key, value);
    },
    async remove(key) {
      storage.removeItem(key);
    },
  };
}

/** What React Native's AsyncStorage (`@react-native-async-storage/async-storage`) has. */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** React Native's AsyncStorage as a session store (the app passes its own import: no dependency here). */
export function asyncStorage(storage: AsyncStorageLike): SessionStore {
  return {
    get: (key) => storage.getItem(key),
    set: (key, value) => storage.setItem(key, value),
    remove: (key) => storage.removeItem(key),
  };
}
