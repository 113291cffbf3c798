/* Block Kit, mrkdwn and streamed replies rendered to DOM nodes.
 *
 * Everything is built with createElement and text nodes: text from the bot or from people is
 * never parsed as HTML. Links are only made for http(s) and mailto URLs.
 */
"use strict";

(function () {
  // ---- tiny DOM helper -------------------------------------------------------------------

  /** h("div", {class: "x", onclick: fn, dataset: {a: 1}}, child, "text", [more]) */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "dataset") {
        for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) el.dataset[k] = v;
      }
      else if (key === "text") el.textContent = value;
      else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
      else if (key in el && typeof value !== "string") el[key] = value;
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    append(el, children);
    return el;
  }

  function append(parent, children) {
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      if (Array.isArray(child)) append(parent, child);
      else if (child instanceof Node) parent.appendChild(child);
      else parent.appendChild(document.createTextNode(String(child)));
    }
    return parent;
  }

  // ---- emoji -------------------------------------------------------------------------------

  const EMOJI = {
    white_check_mark: "✅", heavy_check_mark: "✔️", x: "❌", outbox_tray: "📤", inbox_tray: "📥",
    leftwards_arrow_with_hook: "↩️", arrow_right: "➡️", alarm_clock: "⏰", tada: "🎉",
    hourglass: "⌛", hourglass_flowing_sand: "⏳", bell: "🔔", warning: "⚠️", calendar: "📆",
    date: "📅", spiral_calendar_pad: "🗓️", memo: "📝", palm_tree: "🌴", face_with_thermometer: "🤒",
    thumbsup: "👍", "+1": "👍", wave: "👋", eyes: "👀", no_entry: "⛔", no_entry_sign: "🚫",
    information_source: "ℹ️", bulb: "💡", lock: "🔒", clipboard: "📋", robot_face: "🤖",
    hourglass_done: "⌛", sparkles: "✨", question: "❓", exclamation: "❗", red_circle: "🔴",
    large_green_circle: "🟢", large_yellow_circle: "🟡", speech_balloon: "💬", thinking_face: "🤔",
  };

  // ---- text: mrkdwn (Slack) and markdown (streams) ------------------------------------------

  function decode(text) {
    return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }

  function safeUrl(url) {
    const u = String(url || "").trim();
    return /^(https?:\/\/|mailto:)/i.test(u) ? u : null;
  }

  function link(url, label) {
    const href = safeUrl(url);
    if (!href) return document.createTextNode(label || url);
    return h("a", { href, target: "_blank", rel: "noopener noreferrer" }, label || url);
  }

  const INLINE = [
    ["angle", /<([^<>\n]+)>/],
    ["code", /`([^`\n]+?)`/],
    ["mdlink", /\[([^\]\n]+)\]\(([^)\s]+)\)/],
    ["strong2", /\*\*(?=\S)([^\n]+?)(?<=\S)\*\*/],
    ["star", /(?<![A-Za-z0-9*])\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?![A-Za-z0-9*])/],
    ["under", /(?<![A-Za-z0-9_])_(?![\s_])([^_\n]+?)(?<![\s_])_(?![A-Za-z0-9_])/],
    ["strike", /(?<![A-Za-z0-9~])~(?![\s~])([^~\n]+?)(?<![\s~])~(?![A-Za-z0-9~])/],
    ["emoji", /:([a-z0-9_+-]+):/],
  ];

  /** Inline formatting into `parent`. mode: "mrkdwn" (Slack) or "markdown" (streamed text). */
  function inline(text, mode, parent, ctx) {
    let rest = text;
    while (rest) {
      let best = null;
      for (const [kind, re] of INLINE) {
        if (kind === "mdlink" && mode !== "markdown") continue;
        const m = re.exec(rest);
        if (m && (!best || m.index < best.m.index)) best = { kind, m };
      }
      if (!best) {
        parent.appendChild(document.createTextNode(decode(rest)));
        break;
      }
      const { kind, m } = best;
      if (m.index > 0) parent.appendChild(document.createTextNode(decode(rest.slice(0, m.index))));
      rest = rest.slice(m.index + m[0].length);
      if (kind === "angle") parent.appendChild(angle(m[1], mode, ctx, m[0]));
      else if (kind === "code") parent.appendChild(h("code", {}, decode(m[1])));
      else if (kind === "mdlink") parent.appendChild(link(m[2], decode(m[1])));
      else if (kind === "strong2") inline(m[1], mode, parent.appendChild(h("b")), ctx);
      else if (kind === "star") inline(m[1], mode, parent.appendChild(h(mode === "markdown" ? "i" : "b")), ctx);
      else if (kind === "under") inline(m[1], mode, parent.appendChild(h("i")), ctx);
      else if (kind === "strike") inline(m[1], mode, parent.appendChild(h("s")), ctx);
      else if (kind === "emoji") parent.appendChild(document.createTextNode(EMOJI[m[1]] || m[0]));
    }
    return parent;
  }

  function angle(inner, mode, ctx, raw) {
    const [target, label] = splitOnce(inner, "|");
    if (target.startsWith("@")) {
      const name = (ctx && ctx.userName && ctx.userName(target.slice(1))) || target.slice(1);
      return h("span", { class: "mention" }, "@" + (label ? decode(label) : name));
    }
    if (target.startsWith("#")) return h("span", { class: "mention" }, "#" + decode(label || target.slice(1)));
    if (target.startsWith("!")) {
      const word = target.slice(1).split("^")[0];
      if (["here", "channel", "everyone"].includes(word)) return h("span", { class: "mention" }, "@" + word);
      return document.createTextNode(decode(label || word));
    }
    if (safeUrl(target)) return link(target, label ? decode(label) : target);
    return document.createTextNode(mode === "markdown" ? raw : decode(label || target));
  }

  function splitOnce(text, sep) {
    const i = text.indexOf(sep);
    return i < 0 ? [text, ""] : [text.slice(0, i), text.slice(i + 1)];
  }

  function lines(text, mode, parent, ctx) {
    text.split("\n").forEach((line, i) => {
      if (i > 0) parent.appendChild(h("br"));
      inline(line, mode, parent, ctx);
    });
    return parent;
  }

  /** Slack mrkdwn: *bold*, _italic_, ~strike~, `code`, ```blocks```, > quotes, <links|…>. */
  function mrkdwn(text, ctx) {
    const out = h("div", { class: "mrkdwn" });
    const parts = String(text || "").split(/```/);
    parts.forEach((part, i) => {
      if (i % 2 === 1) {
        out.appendChild(h("pre", {}, decode(part.replace(/^\n/, ""))));
        return;
      }
      let quote = null;
      let para = null;
      part.split("\n").forEach((line) => {
        const q = /^(&gt;|>)\s?(.*)$/.exec(line);
        if (q) {
          if (!quote) quote = out.appendChild(h("blockquote"));
          else quote.appendChild(h("br"));
          inline(q[2], "mrkdwn", quote, ctx);
          para = null;
          return;
        }
        quote = null;
        if (!para) para = out.appendChild(h("span", { class: "para" }));
        else para.appendChild(h("br"));
        inline(line, "mrkdwn", para, ctx);
      });
    });
    trimEmpty(out);
    return out;
  }

  function trimEmpty(el) {
    while (el.lastChild && el.lastChild.nodeType === 1 && el.lastChild.classList.contains("para") && !el.lastChild.textContent) {
      el.removeChild(el.lastChild);
    }
  }

  /** Standard markdown as Slack shows streamed text: **bold**, *italic*, lists, headings, code. */
  function markdown(text, ctx) {
    const out = h("div", { class: "markdown" });
    const src = String(text || "").replace(/\r\n/g, "\n");
    const blocks = src.split(/```/);
    blocks.forEach((chunk, i) => {
      if (i % 2 === 1) {
        out.appendChild(h("pre", {}, chunk.replace(/^[a-z]*\n/, "")));
        return;
      }
      let list = null;
      let para = null;
      for (const line of chunk.split("\n")) {
        const heading = /^(#{1,6})\s+(.*)$/.exec(line);
        const bullet = /^\s*[-*•]\s+(.*)$/.exec(line);
        const ordered = /^\s*(\d+)[.)]\s+(.*)$/.exec(line);
        const quote = /^>\s?(.*)$/.exec(line);
        if (!line.trim()) {
          list = null;
          para = null;
        } else if (heading) {
          list = para = null;
          inline(heading[2], "markdown", out.appendChild(h("div", { class: "md-h" })), ctx);
        } else if (bullet || ordered) {
          para = null;
          const tag = bullet ? "ul" : "ol";
          if (!list || list.tagName.toLowerCase() !== tag) list = out.appendChild(h(tag));
          inline(bullet ? bullet[1] : ordered[2], "markdown", list.appendChild(h("li")), ctx);
        } else if (quote) {
          list = para = null;
          inline(quote[1], "markdown", out.appendChild(h("blockquote")), ctx);
        } else {
          list = null;
          if (!para) para = out.appendChild(h("p"));
          else para.appendChild(h("br"));
          inline(line, "markdown", para, ctx);
        }
      }
    });
    return out;
  }

  /** A Block Kit text object (plain_text or mrkdwn) as a node. */
  function textObject(obj, ctx) {
    if (!obj) return document.createTextNode("");
    if (typeof obj === "string") return mrkdwn(obj, ctx);
    if (obj.type === "mrkdwn") return mrkdwn(obj.text, ctx);
    const span = h("span", { class: "plain" });
    lines(String(obj.text || ""), "plain", span, ctx);
    return span;
  }

  function plainText(obj) {
    if (!obj) return "";
    return typeof obj === "string" ? obj : String(obj.text || "");
  }

  // ---- rich_text -----------------------------------------------------------------------------

  function richText(block, ctx) {
    const out = h("div", { class: "rich" });
    for (const el of block.elements || []) out.appendChild(richElement(el, ctx));
    return out;
  }

  function richElement(el, ctx) {
    switch (el.type) {
      case "rich_text_section":
        return richInline(el.elements, h("div", { class: "rich-section" }), ctx);
      case "rich_text_preformatted":
        return richInline(el.elements, h("pre"), ctx);
      case "rich_text_quote":
        return richInline(el.elements, h("blockquote"), ctx);
      case "rich_text_list": {
        const list = h(el.style === "ordered" ? "ol" : "ul", { class: "rich-list indent-" + (el.indent || 0) });
        for (const item of el.elements || []) list.appendChild(richInline(item.elements, h("li"), ctx));
        return list;
      }
      default:
        return h("div", { class: "bk-unsupported" }, "[" + el.type + "]");
    }
  }

  function richInline(elements, parent, ctx) {
    for (const e of elements || []) {
      let node;
      if (e.type === "text") {
        node = document.createTextNode(e.text || "");
      } else if (e.type === "link") {
        node = link(e.url, e.text || e.url);
      } else if (e.type === "emoji") {
        node = document.createTextNode(e.unicode ? codepoints(e.unicode) : EMOJI[e.name] || ":" + e.name + ":");
      } else if (e.type === "user") {
        const name = (ctx && ctx.userName && ctx.userName(e.user_id)) || e.user_id;
        node = h("span", { class: "mention" }, "@" + name);
      } else if (e.type === "channel") {
        node = h("span", { class: "mention" }, "#" + e.channel_id);
      } else if (e.type === "broadcast") {
        node = h("span", { class: "mention" }, "@" + e.range);
      } else if (e.type === "date") {
        node = document.createTextNode(e.fallback || new Date(e.timestamp * 1000).toLocaleString());
      } else {
        node = document.createTextNode(e.text || "");
      }
      parent.appendChild(styled(node, e.style));
    }
    return parent;
  }

  function codepoints(hex) {
    try {
      return String.fromCodePoint(...String(hex).split("-").map((x) => parseInt(x, 16)));
    } catch (_) {
      return "";
    }
  }

  function styled(node, style) {
    if (!style) return node;
    let out = node;
    if (style.code) out = h("code", {}, out);
    if (style.strike) out = h("s", {}, out);
    if (style.italic) out = h("i", {}, out);
    if (style.bold) out = h("b", {}, out);
    return out;
  }

  // ---- thinking steps: plan blocks, task cards, streams ----------------------------------------

  // Slack's own words around the steps, in the reader's language (ctx.zh).
  const STATUS_LABEL = {
    pending: ["Pending", "等待中"],
    in_progress: ["In progress", "进行中"],
    complete: ["Done", "已完成"],
    error: ["Failed", "失败"],
  };

  function statusIcon(status, ctx) {
    const s = STATUS_LABEL[status] ? status : "pending";
    const label = STATUS_LABEL[s][ctx && ctx.zh ? 1 : 0];
    return h("span", { class: "task-icon " + s, title: label, "aria-label": label });
  }

  function taskRow(task, ctx) {
    const status = task.status || "pending";
    const body = h("div", { class: "task-body" }, h("div", { class: "task-title" }, task.title || "…"));
    for (const key of ["details", "output"]) {
      const value = task[key];
      if (!value) continue;
      const box = h("div", { class: "task-" + key });
      if (typeof value === "string") lines(value, "plain", box, ctx);
      else if (value.type === "rich_text") box.appendChild(richText(value, ctx));
      else box.appendChild(textObject(value, ctx));
      body.appendChild(box);
    }
    return h("li", { class: "task " + status, dataset: { taskId: task.id || task.task_id || "", status } }, statusIcon(status, ctx), body);
  }

  function planGroup(title, tasks, running, ctx) {
    const done = tasks.filter((t) => t.status === "complete").length;
    const failed = tasks.some((t) => t.status === "error");
    const active = running || tasks.some((t) => t.status === "in_progress" || t.status === "pending");
    const zh = Boolean(ctx && ctx.zh);
    const steps = (n) => (zh ? `${n} 个步骤` : `${n} step${n === 1 ? "" : "s"}`);
    const failedLine = zh ? `${steps(tasks.length - done)}失败 · ${done} 个完成` : `${steps(tasks.length - done)} failed · ${done} done`;
    const summary = title || (active ? (zh ? "处理中…" : "Working on it…") : failed ? failedLine : zh ? `已完成 ${steps(done)}` : `Completed ${steps(done)}`);
    const state = active ? "in_progress" : failed ? "error" : "complete";
    const details = h(
      "details",
      { class: "plan " + state, open: true },
      h("summary", {}, statusIcon(state, ctx), h("span", { class: "plan-title" }, summary)),
      h("ol", { class: "tasks" }, tasks.map((t) => taskRow(t, ctx)))
    );
    return details;
  }

  function planBlock(block, ctx) {
    const tasks = (block.tasks || []).map((t) => ({ ...t, id: t.task_id }));
    return planGroup(plainText(block.title), tasks, false, ctx);
  }

  /** A streamed reply: its steps (as a plan group or inline) and its markdown answer. */
  function stream(s, ctx) {
    const out = h("div", { class: "stream " + (s.state || "") });
    const tasks = s.tasks || [];
    const byId = Object.fromEntries(tasks.map((t) => [t.id, t]));
    const running = s.state === "in_progress";
    if (s.task_display_mode === "plan") {
      if (tasks.length || s.plan_title) out.appendChild(planGroup(s.plan_title, tasks, running && !s.markdown_text, ctx));
      for (const item of s.timeline || []) {
        if (item.type === "blocks") out.appendChild(blocks(item.blocks, ctx));
      }
      if (s.markdown_text) out.appendChild(markdown(s.markdown_text, ctx));
    } else {
      let list = null;
      for (const item of s.timeline || []) {
        if (item.type === "task" && byId[item.id]) {
          if (!list) list = out.appendChild(h("ol", { class: "tasks timeline" }));
          list.appendChild(taskRow(byId[item.id], ctx));
        } else {
          list = null;
          if (item.type === "markdown_text") out.appendChild(markdown(item.text, ctx));
          else if (item.type === "blocks") out.appendChild(blocks(item.blocks, ctx));
        }
      }
    }
    if (running) out.appendChild(h("span", { class: "caret", "aria-hidden": "true" }));
    return out;
  }

  // ---- blocks ----------------------------------------------------------------------------------

  function button(el, block, ctx) {
    const style = el.style === "primary" || el.style === "danger" ? el.style : "";
    const btn = h(
      "button",
      {
        type: "button",
        class: "bk-btn " + style,
        dataset: { actionId: el.action_id || "", blockId: block.block_id || "" },
        title: el.accessibility_label || null,
      },
      plainText(el.text)
    );
    btn.addEventListener("click", () => {
      if (el.url && safeUrl(el.url)) window.open(safeUrl(el.url), "_blank", "noopener");
      if (ctx && ctx.onAction) ctx.onAction(el, block, btn);
    });
    return btn;
  }

  // Checkboxes as Slack shows them: one labelled tick per option. What is ticked is read when a
  // button of the same message or view is clicked (Slack's `state.values`: see `checkedState`).
  function checkboxes(el, block) {
    return h(
      "div",
      { class: "bk-checkboxes", role: "group", dataset: { actionId: el.action_id || "", blockId: block.block_id || "" } },
      (el.options || []).map((o) =>
        h(
          "label",
          { class: "bk-checkbox" },
          h("input", { type: "checkbox", value: o.value || "" }),
          h("span", {}, plainText(o.text))
        )
      )
    );
  }

  /** The ticked options of every checkbox group under `root`, as Slack's state.values. */
  function checkedState(root) {
    const values = {};
    if (!root) return values;
    for (const group of root.querySelectorAll(".bk-checkboxes")) {
      const { blockId, actionId } = group.dataset;
      const selected = [...group.querySelectorAll("input:checked")].map((i) => ({
        value: i.value,
        text: { type: "plain_text", text: i.nextSibling ? i.nextSibling.textContent : "" },
      }));
      values[blockId] = { ...(values[blockId] || {}), [actionId]: { type: "checkboxes", selected_options: selected } };
    }
    return values;
  }

  function element(el, block, ctx) {
    if (el.type === "button") return button(el, block, ctx);
    if (el.type === "checkboxes") return checkboxes(el, block);
    if (el.type === "image") return h("span", { class: "bk-image", title: el.alt_text || "" }, "🖼");
    if (el.type === "overflow") return h("span", { class: "bk-unsupported" }, "⋯");
    return h("span", { class: "bk-unsupported" }, "[" + el.type + "]");
  }

  function section(block, ctx) {
    const main = h("div", { class: "bk-section-main" });
    if (block.text) main.appendChild(textObject(block.text, ctx));
    if (block.fields && block.fields.length) {
      main.appendChild(h("div", { class: "bk-fields" }, block.fields.map((f) => h("div", { class: "bk-field" }, textObject(f, ctx)))));
    }
    const out = h("div", { class: "bk-section" }, main);
    if (block.accessory) out.appendChild(h("div", { class: "bk-accessory" }, element(block.accessory, block, ctx)));
    return out;
  }

  function blockNode(block, ctx) {
    switch (block.type) {
      case "section":
        return section(block, ctx);
      case "header":
        return h("div", { class: "bk-header" }, plainText(block.text));
      case "divider":
        return h("hr", { class: "bk-divider" });
      case "context":
        return h(
          "div",
          { class: "bk-context" },
          (block.elements || []).map((e) =>
            e.type === "image" ? h("span", { class: "bk-image small", title: e.alt_text || "" }, "🖼") : h("span", { class: "bk-context-item" }, textObject(e, ctx))
          )
        );
      case "actions":
        return h("div", { class: "bk-actions" }, (block.elements || []).map((e) => element(e, block, ctx)));
      case "rich_text":
        return richText(block, ctx);
      case "markdown":
        return markdown(block.text, ctx);
      case "plan":
        return planBlock(block, ctx);
      case "task_card":
        return h("ol", { class: "tasks" }, taskRow({ ...block, id: block.task_id }, ctx));
      case "image":
        return h("div", { class: "bk-image-block" }, "🖼 ", block.alt_text || "image");
      case "input":
        return ctx && ctx.input ? ctx.input(block) : h("div", { class: "bk-unsupported" }, "[input]");
      default:
        return h("div", { class: "bk-unsupported" }, `[${block.type} block]`);
    }
  }

  function blocks(list, ctx) {
    const out = h("div", { class: "blocks" });
    for (const block of list || []) {
      const node = blockNode(block, ctx);
      if (block.block_id) node.dataset.blockId = block.block_id;
      node.classList.add("bk", "bk-" + block.type);
      out.appendChild(node);
    }
    return out;
  }

  window.BlockKit = { h, append, mrkdwn, markdown, textObject, plainText, blocks, stream, richText, checkedState, EMOJI };
})();
