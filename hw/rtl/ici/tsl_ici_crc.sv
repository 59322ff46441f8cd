// CRC-32 of the ICI links (docs/pod.md, The link): the reflected polynomial 0xEDB88320, as zlib's
// crc32() and Ethernet. crc_o is the running register after the Bytes bytes of data_i, byte 0 first,
// each byte's bit 0 first; a packet's CRC starts the register at 0xFFFFFFFF and sends its complement.
// Combinational.
module tsl_ici_crc #(
  parameter int Bytes = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE
) (
  input  logic [31:0]          crc_i,
  input  logic [8*Bytes-1:0]   data_i,
  output logic [31:0]          crc_o
);
  always_comb begin
    crc_o = crc_i;
    for (int i = 0; i < 8 * Bytes; i++)
      crc_o = (crc_o >> 1) ^ ((crc_o[0] ^ data_i[i]) ? 32'hEDB88320 : 32'h0);
  end
endmodule
