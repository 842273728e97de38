// Picking: which of a buffer view's elements is drawn at a point of the picture, or nearest it
// within a radius. The includer places its elements as their draw does and defines pickCount()
// and pickElement() (markers_pick.glsl, lines_pick.glsl, points_pick.glsl, mesh_pick.comp); this
// runs three passes of one pipeline over the PickState the renderer initialized (renderer/pick.h),
// each told apart by its `pass`:
//   0. every element within the radius keeps, by one atomicMin, the smallest rank: its distance
//      from the point in 1/8 pixels (0 where it covers the point), then its distance from the eye
//      (meshes, which are depth-tested; the other views are drawn in buffer order and all tie
//      there);
//   1. every element of that rank keeps, by one atomicMax, the largest index + 1: among ties the
//      last in buffer order, the one their draw leaves on top;
//   2. one invocation writes the winner's nearest vertex, value and position.
// Passes 0 and 1 run the same code on the same data, so the winner's rank in pass 1 is the one
// pass 0 kept.
#include "shared_layout.h"

layout(local_size_x = 256) in;

layout(std430, binding = ESTUARY_BINDING_PICK) coherent buffer PickState {
    float cursorX; // the point, in pixels (the picture's top-left corner at 0, 0)
    float cursorY;
    float radius; // pixels beyond an element's shape it is still picked
    uint pass;
    uint rank;   // pass 0's result; 0xFFFFFFFF: nothing within the radius
    uint winner; // pass 1's: index + 1; 0: none
    uint vertex; // pass 2's: the vertex nearest the point (markers, points: the element)
    float distance;
    float value;
    float x;
    float y;
    float z;
}
pick;

struct PickHit {
    float distance; // pixels from the point to the element's shape; 0: it covers the point
    float depth;    // distance from the eye along the view (meshes), else 0
    uint vertex;
    float value;
    vec3 position;
};

uint pickCount();
// Element `index` as drawn, seen from `cursor`; false where it is not drawn.
bool pickElement(uint index, vec2 cursor, out PickHit hit);

uint pickRank(PickHit hit) {
    uint steps = uint(min(ceil(hit.distance * 8.0), 1023.0));
    float depth = max(hit.depth, 0.0);
    return steps << 22 | uint(clamp(depth / (depth + 1.0), 0.0, 1.0) * 4194303.0);
}

void main() {
    vec2 cursor = vec2(pick.cursorX, pick.cursorY);
    uint pass = pick.pass;
    if (pass == 2u) {
        if (gl_GlobalInvocationID.x != 0u || pick.winner == 0u) return;
        PickHit hit;
        pickElement(pick.winner - 1u, cursor, hit);
        pick.vertex = hit.vertex;
        pick.distance = hit.distance;
        pick.value = hit.value;
        pick.x = hit.position.x;
        pick.y = hit.position.y;
        pick.z = hit.position.z;
        return;
    }
    uint count = pickCount();
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        PickHit hit;
        // NaN distances fail the comparison too.
        if (!pickElement(i, cursor, hit) || !(hit.distance <= pick.radius)) continue;
        uint rank = pickRank(hit);
        if (pass == 0u)
            atomicMin(pick.rank, rank);
        else if (rank == pick.rank)
            atomicMax(pick.winner, i + 1u);
    }
}
