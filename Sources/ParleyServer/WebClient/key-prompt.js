// The API key, asked for when /health says the server needs one: kept for the tab (or on the
// device, if the person says so), and checked against the HTTP API before it is used.

import { $, announce, setConnection } from "./notices.js";

/** Whether the key in use opens the API (a refused key is a 401). */
export async function keyWorks(api) {
  if (!api.key) return false;
  try {
    await api.models();
    return true;
  } catch (error) {
    if (error.status === 401) return false;
    throw error;
  }
}

/** Asks for the key until one works. */
export function askForKey(api, problem) {
  const dialog = $("key-dialog");
  const error = $("key-error");
  error.hidden = !problem;
  error.textContent = problem ?? "";
  $("key-input").value = "";
  return new Promise((resolve) => {
    const submit = async (event) => {
      event.preventDefault();
      const key = $("key-input").value.trim();
      if (!key) return;
      api.setKey(key, $("key-remember").checked);
      let works = false;
      try {
        works = await keyWorks(api);
      } catch (failure) {
        error.hidden = false;
        error.textContent = failure.message;
        return;
      }
      if (!works) {
        error.hidden = false;
        error.textContent = "That key was not accepted. Check it and try again.";
        $("key-input").select();
        return;
      }
      $("key-form").removeEventListener("submit", submit);
      dialog.close();
      announce("Key accepted.");
      resolve();
    };
    $("key-form").addEventListener("submit", submit);
    // Escape leaves the page usable for what needs no key; Settings can ask again.
    dialog.addEventListener("cancel", () => setConnection("error", "Needs an API key (Settings)"), { once: true });
    dialog.showModal();
    $("key-input").focus();
  });
}
