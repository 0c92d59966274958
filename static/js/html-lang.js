// The API docs pages come from drf-spectacular's templates, whose <html> has no lang attribute
// (axe: html-has-lang); screen readers need it to pick the voice. Our pages set it in base.html;
// here it comes from the script tag's data-lang (the request's language).
document.documentElement.lang = (document.currentScript && document.currentScript.dataset.lang) || "en";
