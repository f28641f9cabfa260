// Progressive enhancement: copy buttons, section links and the publish
// form's keyboard and focus behaviour. Buttons are hidden in the HTML and
// shown here, so without JavaScript nobody sees a button that does
// nothing. No inline script anywhere: the page's CSP forbids it.
(function () {
  "use strict";

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return fallbackCopy(text); });
    }
    return Promise.resolve(fallbackCopy(text));
  }

  // fallbackCopy copies through a temporary, off-screen text area, for
  // browsers without the asynchronous clipboard (plain HTTP origins).
  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  // One polite live region tells screen readers what a copy did; the
  // button's own label changes only visually (its width is fixed in CSS).
  var status;
  function announce(message) {
    if (!status) { return; }
    status.textContent = "";
    window.setTimeout(function () { status.textContent = message; }, 50);
  }

  function flash(button, label) {
    var original = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", original);
    button.textContent = label;
    window.clearTimeout(button.copyTimer);
    button.copyTimer = window.setTimeout(function () { button.textContent = original; }, 1600);
  }

  function setUpCopy(button) {
    button.hidden = false;
    if (!button.hasAttribute("aria-label")) {
      button.setAttribute("aria-label", "Copy " + (button.getAttribute("data-copy") || "").replace(/-/g, " "));
    }
    // "Copy the hex hash" → "the hex hash", for "Copied the hex hash".
    var what = button.getAttribute("aria-label").replace(/^Copy\s*/, "");
    button.addEventListener("click", function () {
      var target = document.getElementById(button.getAttribute("data-copy"));
      if (!target) { return; }
      copyText(target.textContent).then(function (ok) {
        if (ok) {
          flash(button, "Copied");
          announce("Copied " + what);
          return;
        }
        flash(button, "Ctrl+C");
        var range = document.createRange();
        range.selectNodeContents(target);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        announce("Could not copy; " + what + " is selected: press Ctrl+C");
      });
    });
  }

  // Section links: each document heading with an id gets a "#" link to
  // itself, named for screen readers.
  function addAnchors() {
    var headings = document.querySelectorAll(".markdown [id^='doc-']");
    Array.prototype.forEach.call(headings, function (h) {
      var a = document.createElement("a");
      a.className = "anchor";
      a.href = "#" + h.id;
      a.textContent = "#";
      a.setAttribute("aria-label", "Link to the section " + h.textContent);
      h.appendChild(a);
    });
  }

  function setUpPublish() {
    var form = document.querySelector("form.publish");
    if (!form) { return; }
    // Enter in the token field means Publish, not the form's first
    // button (Preview).
    var token = document.getElementById("token");
    var publish = form.querySelector("button[value='publish']");
    if (token && publish) {
      token.addEventListener("keydown", function (e) {
        if (e.key === "Enter" && !e.isComposing) {
          e.preventDefault();
          if (form.requestSubmit) { form.requestSubmit(publish); } else { publish.click(); }
        }
      });
      // The keypress that follows would submit the form a second time, by
      // its first button, wherever keydown's default was not honoured.
      token.addEventListener("keypress", function (e) {
        if (e.key === "Enter") { e.preventDefault(); }
      });
    }
    // The token survives Preview in this tab's session storage for the one
    // navigation (read and removed on the next page), never in the page
    // the server sends back: no answer ever echoes a secret.
    if (token) {
      form.addEventListener("submit", function () {
        if (token.value) { sessionStorage.setItem(tokenKey, token.value); }
      });
      if (keptToken && !token.value) { token.value = keptToken; }
    }
    // After a preview (or a publish that needs confirming), take the
    // reader to what they must look at.
    var focus = document.querySelector("[data-focus]");
    if (focus) {
      focus.focus();
      focus.scrollIntoView({ block: "start" });
    }
    // Show the chosen file's name next to the text area's hint.
    var file = document.getElementById("file");
    var hint = document.getElementById("content-hint");
    if (file && hint) {
      file.addEventListener("change", function () {
        if (file.files && file.files.length) {
          hint.textContent = "The file “" + file.files[0].name + "” will be used instead of the text above (byte for byte).";
        }
      });
    }
  }

  var tokenKey = "agora-registry-publish-token", keptToken = null;

  document.addEventListener("DOMContentLoaded", function () {
    try {
      keptToken = sessionStorage.getItem(tokenKey);
      sessionStorage.removeItem(tokenKey);
    } catch (e) { keptToken = null; }
    var buttons = document.querySelectorAll("button.copy[data-copy]");
    if (buttons.length) {
      status = document.createElement("p");
      status.id = "copy-status";
      status.className = "visually-hidden";
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      document.body.appendChild(status);
    }
    Array.prototype.forEach.call(buttons, setUpCopy);
    addAnchors();
    setUpPublish();
  });
})();
