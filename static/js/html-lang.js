// The API docs pages come from drf-spectacular's templates, whose <html> has no lang attribute
// (axe: html-has-lang); screen readers need it to pick the voice. Our pages set it in base.html.
document.documentElement.lang = "en";
