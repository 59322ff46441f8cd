/* Hello world for the Tessel control core: printf goes to the SYS console, main's return value
 * becomes the simulation's exit code. */
#include <stdio.h>

int main(void) {
  printf("Hello from Tessel's RV32IM control core!\n");
  return 0;
}
