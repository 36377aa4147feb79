// sigma.js's node and edge programs without instancing. sigma draws each node and edge as one instance of a
// small shape (drawArraysInstanced); a GPU draws instances for free, but a browser without one renders WebGL in
// software (SwiftShader), where every instance costs about 13 µs: 10,000 instanced quads paint at 6 frames per
// second there, the same quads as one plain vertex array at 31 (measured in headless Chromium on a 2-vCPU VM,
// bench/README.md "Console"). These are sigma's own programs (the same shaders, attributes and uniforms: the
// drawing looks the same) with each instance's shape written out vertex by vertex: the per-instance attributes
// repeated for every vertex, followed by that vertex's constant data.
/* global Sigma */

const { getAttributesItemsCount } = Sigma.rendering;

/** The program class `Base` (an instanced sigma program) drawn as plain triangles. */
export function withoutInstancing(Base) {
  return class extends Base {
    getDefinition() {
      const def = super.getDefinition();
      if (!('CONSTANT_ATTRIBUTES' in def)) return def;
      const { CONSTANT_ATTRIBUTES, CONSTANT_DATA, ...rest } = def;
      this.itemAttributes = getAttributesItemsCount(def.ATTRIBUTES);
      this.vertexConstants = CONSTANT_DATA;
      this.itemScratch = new Float32Array(this.itemAttributes);
      return { ...rest, ATTRIBUTES: [...def.ATTRIBUTES, ...CONSTANT_ATTRIBUTES] };
    }

    processVisibleItem(index, startIndex, ...data) {
      if (!this.vertexConstants) return super.processVisibleItem(index, startIndex, ...data);
      // the instance's attributes, as the instanced program writes them, into a scratch row
      const array = this.array;
      this.array = this.itemScratch;
      super.processVisibleItem(index, 0, ...data);
      this.array = array;
      let at = startIndex;
      for (const constants of this.vertexConstants) {
        array.set(this.itemScratch, at);
        at += this.itemAttributes;
        for (const c of constants) array[at++] = c;
      }
    }
  };
}

/** sigma's default programs for the node and edge types the console draws (circle; line, arrow), without instancing:
 *  settings for `new Sigma`. */
const R = Sigma.rendering;
export const PROGRAMS_WITHOUT_INSTANCING = {
  nodeProgramClasses: { circle: withoutInstancing(R.NodeCircleProgram) },
  edgeProgramClasses: {
    line: withoutInstancing(R.EdgeRectangleProgram),
    arrow: R.createEdgeCompoundProgram([withoutInstancing(R.EdgeClampedProgram), withoutInstancing(R.EdgeArrowHeadProgram)]),
  },
};
