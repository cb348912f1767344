# Issue 8 item 10 (messages echo raw control bytes), found by fusebox_fuzz
# parsers --message-checks (all of 0x01-0x1f and 0x7f). The error for line 5
# prints the byte as is: "...:5:1: unexpected character '<0x03>'".
import torch

