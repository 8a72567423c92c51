// The admin token lives in this tab's sessionStorage only: never in a URL or a cookie.

const TOKEN_KEY = "toolgate.console.adminToken";
const NOTICE_KEY = "toolgate.console.notice";

function storage<T>(action: (store: Storage) => T): T | null {
  try {
    return action(window.sessionStorage);
  } catch {
    return null;
  }
}

export const storedToken = () => storage((store) => store.getItem(TOKEN_KEY));

export const keepToken = (token: string) => storage((store) => store.setItem(TOKEN_KEY, token));

export function endSession(notice: string) {
  storage((store) => {
    store.removeItem(TOKEN_KEY);
    store.setItem(NOTICE_KEY, notice);
  });
  location.reload();
}

/** The notice left by the last sign-out, read once. */
export const takeNotice = () =>
  storage((store) => {
    const text = store.getItem(NOTICE_KEY);
    store.removeItem(NOTICE_KEY);
    return text;
  });
