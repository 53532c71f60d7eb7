// The mind map of the open conversation: the server makes it (POST /v1/mindmaps) and draws it as
// an accessible SVG, shown here with the same map as a plain list and a download link.

import { $, announce } from "./notices.js";

const svgType = "image/svg+xml";

export class MindMapView {
  constructor(api) {
    this.api = api;
    this.dialog = $("mindmap");
    this.request = 0; // the latest request: an older answer arriving late is dropped
    this.download = null;
    $("mindmap-close").addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => {
      this.request += 1;
      $("mindmap-open").focus();
    });
  }

  /** Opens the dialog and asks the server for a map of conversation `thread`. */
  async show(thread) {
    const request = ++this.request;
    this.clear();
    this.status("Making a mind map of this conversation… This takes a little while on the on-device model.");
    this.dialog.setAttribute("aria-busy", "true");
    this.dialog.showModal();
    let map;
    try {
      map = await this.api.mindMap(thread);
    } catch (error) {
      if (request !== this.request) return;
      this.dialog.removeAttribute("aria-busy");
      this.status(`No mind map: ${error.message}`, true);
      return;
    }
    if (request !== this.request) return;
    this.dialog.removeAttribute("aria-busy");
    const svg = new DOMParser().parseFromString(map.svg, svgType).documentElement;
    if (svg.nodeName !== "svg") {
      this.status("The server's drawing could not be read.", true);
      return;
    }
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    $("mindmap-figure").append(document.importNode(svg, true));
    this.outline(map);
    this.download = URL.createObjectURL(new Blob([map.svg], { type: svgType }));
    const link = $("mindmap-download");
    link.href = this.download;
    link.download = `mindmap-${thread}.svg`;
    link.hidden = false;
    $("mindmap-outline-box").hidden = false;
    this.status(`Mind map of “${map.topic}”, ${map.branches.length} branches. Made by ${map.provider}.`);
    announce(`Mind map ready: ${map.topic}.`);
  }

  clear() {
    $("mindmap-figure").replaceChildren();
    $("mindmap-outline").replaceChildren();
    $("mindmap-outline-box").hidden = true;
    $("mindmap-download").hidden = true;
    if (this.download) URL.revokeObjectURL(this.download);
    this.download = null;
  }

  status(text, failed = false) {
    const line = $("mindmap-status");
    line.textContent = text;
    line.classList.toggle("error-text", failed);
  }

  /** The map as nested lists: topic, branches, ideas, details. */
  outline(map) {
    const list = $("mindmap-outline");
    const item = (label, children) => {
      const element = document.createElement("li");
      element.textContent = label;
      if (children.length > 0) {
        const nested = document.createElement("ul");
        nested.append(...children);
        element.append(nested);
      }
      return element;
    };
    list.append(item(map.topic, map.branches.map((branch) =>
      item(branch.label, branch.ideas.map((idea) => item(idea.label, idea.details.map((detail) => item(detail, []))))))));
  }
}
