// What sticks out sideways on this page: the page's own overflow, and every element past the
// viewport's right edge that no scroller of its own (a table's .table-wrap, a <pre>) holds.
() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width) {
    found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  }
  const held = (element) => {
    for (let a = element.parentElement; a; a = a.parentElement) {
      const overflow = getComputedStyle(a).overflowX;
      if ((overflow === "auto" || overflow === "scroll") && a.getBoundingClientRect().right <= width + 1) return true;
    }
    return false;
  };
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > width + 1 && !held(element)) {
      found.push(`${element.tagName.toLowerCase()}.${element.getAttribute("class") || ""} reaches ${Math.round(box.right)} px`);
      if (found.length >= 5) break;
    }
  }
  return found;
}
