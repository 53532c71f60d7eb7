// What the server can do, for Settings: the model names it takes (GET /v1/models) and each
// capability's chain of providers with their health (GET /health).

/** Fills `select` with the model names, keeping `chosen` when the server has it. */
export async function fillModels(api, select, chosen) {
  try {
    const models = await api.models();
    const names = (models.data ?? []).map((model) => model.id).filter((id) => id !== "auto");
    select.replaceChildren(new Option("auto (the fallback chain)", "auto"), ...names.map((id) => new Option(id, id)));
    select.value = names.includes(chosen) ? chosen : "auto";
  } catch {
    // keeps "auto"
  }
}

/** Lists every capability's providers, their state, and the one in use, in `box`. */
export async function showProviders(api, box) {
  let health;
  try {
    health = await api.health();
  } catch (error) {
    box.replaceChildren(Object.assign(document.createElement("p"), { textContent: `Health unavailable: ${error.message}`, className: "error-text" }));
    return;
  }
  box.replaceChildren();
  const overall = document.createElement("p");
  overall.className = "quiet";
  overall.textContent = `Server: ${health.status}, up ${Math.round(health.uptime_seconds / 60)} min.`;
  box.append(overall);
  const names = { LLM: "Language model", STT: "Speech to text", TTS: "Text to speech", VAD: "Voice activity detection" };
  for (const capability of health.capabilities ?? []) {
    const heading = document.createElement("h3");
    heading.textContent = names[capability.capability] ?? capability.capability;
    const list = document.createElement("ul");
    for (const provider of capability.chain ?? []) {
      const line = document.createElement("li");
      const name = document.createElement("span");
      const described = provider.provider ?? provider.name;
      name.textContent = `${described.startsWith(provider.name) ? described : `${provider.name}: ${described}`} — `;
      const stateText = document.createElement("span");
      // Not configured is the usual state of a cloud provider without a key, not a fault.
      const ready = provider.available && provider.health === "healthy";
      stateText.className = `state ${ready ? "ready" : provider.configured ? "down" : ""}`;
      stateText.textContent = provider.available ? provider.health : provider.reason;
      line.append(name, stateText);
      if (capability.uses && capability.uses === provider.provider) line.append(document.createTextNode(" (in use)"));
      list.append(line);
    }
    box.append(heading, list);
  }
}

/** Asks every configured provider of `capability` ("chat" or "speech") with `input` and shows
 * them side by side in `box`: provider, first and total milliseconds, cost, output (voices with
 * a play button). */
export async function compareProviders(api, capability, input, box) {
  box.replaceChildren(Object.assign(document.createElement("p"), { className: "quiet", textContent: "Asking every provider…" }));
  let comparison;
  try {
    comparison = await api.compare(capability === "chat" ? { capability, prompt: input } : { capability, text: input });
  } catch (error) {
    box.replaceChildren(Object.assign(document.createElement("p"), { className: "error-text", textContent: `Comparison failed: ${error.message}` }));
    return;
  }
  const table = document.createElement("table");
  table.className = "compare";
  const caption = document.createElement("caption");
  caption.textContent = capability === "chat" ? "Language models" : "Voices";
  const head = document.createElement("tr");
  for (const name of ["Provider", "First (ms)", "Total (ms)", "Cost", capability === "chat" ? "Answer" : "Speech"]) {
    head.append(Object.assign(document.createElement("th"), { scope: "col", textContent: name }));
  }
  table.append(caption, head);
  const ms = (value) => (value == null ? "–" : String(Math.round(value)));
  for (const result of comparison.results ?? []) {
    const row = document.createElement("tr");
    row.dataset.outcome = result.outcome;
    const name = Object.assign(document.createElement("th"), { scope: "row", textContent: result.provider });
    const cost = result.cost == null ? "–" : result.cost === 0 ? "free" : `$${result.cost.toFixed(5)}`;
    const output = document.createElement("td");
    if (result.outcome !== "answered") {
      output.textContent = `${result.outcome}: ${result.detail ?? ""}`;
      output.className = "quiet";
    } else {
      output.textContent = result.output ?? "";
      if (result.audio) {
        const play = Object.assign(document.createElement("button"), { type: "button", textContent: "Play" });
        play.setAttribute("aria-label", `Play ${result.provider}`);
        play.addEventListener("click", () => new Audio(`data:audio/wav;base64,${result.audio}`).play());
        output.append(" ", play);
      }
    }
    row.append(name, ...[ms(result.first_ms), ms(result.total_ms), cost].map((text) => Object.assign(document.createElement("td"), { textContent: text })), output);
    table.append(row);
  }
  box.replaceChildren(table);
}
