// The ICI route of docs/pod.md, Routing, as a function (`include inside a module): the port a
// packet for chip (x, y) leaves (my_x, my_y) by, in a dim_x x dim_y pod with Ports links: along X
// until the X coordinate is reached, the shorter way round (+X, port 0, on a tie, or -X with neg;
// -X, port 1), then along Y the same way (+Y 2, -Y 3); Ports when (x, y) is this chip. Used by the
// router (neg 0) and by the DMA, which gives a SEND to the send engine of the port its packets leave
// by (neg: the SEND's NEG, which so chooses only the first hop).
function automatic logic [2:0] tsl_ici_route(input logic [3:0] x, input logic [3:0] y, input logic [3:0] my_x,
                                             input logic [3:0] my_y, input logic [4:0] dim_x,
                                             input logic [4:0] dim_y, input logic neg, input int ports);
  logic [4:0] dx, dy;
  dx = x >= my_x ? 5'(x - my_x) : 5'(x) + dim_x - 5'(my_x);   // hops going +X
  dy = y >= my_y ? 5'(y - my_y) : 5'(y) + dim_y - 5'(my_y);
  if (dx != '0)
    tsl_ici_route = 2 * dx < dim_x || (2 * dx == dim_x && !neg) ? 3'd0 : 3'd1;
  else if (dy != '0 && ports == 4)
    tsl_ici_route = 2 * dy < dim_y || (2 * dy == dim_y && !neg) ? 3'd2 : 3'd3;
  else
    tsl_ici_route = 3'(ports);
endfunction
