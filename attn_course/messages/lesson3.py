"""Lesson 3's messages: hints for masks, padding, NaN rows and dropout."""

MESSAGES = {
    "hint_safe_softmax_uniform": {
        "ja": "すべて隠された行が一様な重み（1/T）になっています。-inf を -1e9 のような大きな負の数に置き換えると、こうなります。ソフトマックスはそのまま計算し、そのあとで NaN を 0 にしてください（nan_to_num(0.0)）。",
        "ko": "모두 가려진 행이 균일한 가중치(1/T)가 되었습니다. -inf를 -1e9 같은 큰 음수로 바꾸면 이렇게 됩니다. 소프트맥스는 그대로 계산하고, 그 뒤에 NaN을 0으로 바꾸세요(nan_to_num(0.0)).",
    },
    "hint_upper_triangle": {
        "ja": "上三角が残っています。因果マスクでは、クエリ i が見てよいのはキー j ≤ i（対角線とその左下）です。torch.tril を使います（triu ではありません）。",
        "ko": "위 삼각형이 남아 있습니다. 인과 마스크에서 쿼리 i가 볼 수 있는 것은 키 j ≤ i(대각선과 그 왼쪽 아래)입니다. torch.triu가 아니라 torch.tril을 쓰세요.",
    },
    "hint_inverted_mask": {
        "ja": "マスクが反転しています。この講座の keep マスクは「見てよいところが True」です。masked_fill は True の場所を埋めるので、埋めるのは ~keep（見てはいけないところ）です。",
        "ko": "마스크가 뒤집혔습니다. 이 강좌의 keep 마스크는 '봐도 되는 곳이 True'입니다. masked_fill은 True인 곳을 채우므로, 채울 곳은 ~keep(보면 안 되는 곳)입니다.",
    },
    "hint_mask_not_bool": {
        "ja": "マスクは dtype=torch.bool にしてください（いまは {dtype}）。",
        "ko": "마스크는 dtype=torch.bool이어야 합니다(지금은 {dtype}).",
    },
    "hint_mask_device": {
        "ja": "マスクがスコアと別のデバイスに作られています。torch.ones(T, T) のように device を指定せずに作ると CPU に置かれ、GPU 上のスコアと組み合わせたときにエラーになります。device= を渡すか、register_buffer で登録してモジュールと一緒に移動させてください。",
        "ko": "마스크가 점수와 다른 장치에 만들어졌습니다. torch.ones(T, T)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 점수와 함께 쓰면 오류가 납니다. device=를 넘기거나 register_buffer로 등록해 모듈과 함께 옮겨지게 하세요.",
    },
    "hint_mask_multiplied": {
        "ja": "見てはいけない位置のスコアが 0 になっています（スコアにマスクを掛けたか、masked_fill で 0 を入れたときにこうなります）。exp(0) = 1 なので、0 にしても見てはいけない位置に重みが残ります。見てはいけない位置のスコアは -inf で埋めます。",
        "ko": "보면 안 되는 위치의 점수가 0이 되었습니다(점수에 마스크를 곱하거나 masked_fill로 0을 채우면 이렇게 됩니다). exp(0) = 1이라서 0으로 바꿔도 보면 안 되는 위치에 가중치가 남습니다. 보면 안 되는 위치의 점수는 -inf로 채웁니다.",
    },
    "hint_mask_diagonal": {
        "ja": "対角線がずれています。クエリ i が見てよいのはキー j ≤ i で、自分自身（対角線）は含み、その右隣（未来）は含みません。tril は diagonal を指定せずに（diagonal=0 で）使います。",
        "ko": "대각선이 어긋났습니다. 쿼리 i가 볼 수 있는 것은 키 j ≤ i이며, 자기 자신(대각선)은 포함하고 그 오른쪽(미래)은 포함하지 않습니다. tril은 diagonal을 지정하지 않고(diagonal=0으로) 씁니다.",
    },
    "hint_mask_no_tril": {
        "ja": "すべて True です。tril() で下三角だけを残すのを忘れていませんか。",
        "ko": "모두 True입니다. tril()로 아래 삼각형만 남기는 것을 빠뜨린 것 같습니다.",
    },
    "hint_mask_not_applied": {
        "ja": "スコアが何も変わらずに返ってきました。keep が False の場所を -inf で埋めてください（scores.masked_fill(~keep, float(\"-inf\"))）。",
        "ko": "점수가 하나도 바뀌지 않은 채 반환되었습니다. keep이 False인 곳을 -inf로 채우세요(scores.masked_fill(~keep, float(\"-inf\"))).",
    },
    "hint_fill_not_inf": {
        "ja": "隠す場所を -inf ではなく有限の数（-1e9 や torch.finfo(dtype).min）で埋めていませんか。この講座の演習では -inf で埋めます。すべてのキーが隠された行を 0 にするのは safe_softmax（演習 5）の役目で、-inf なら NaN になるので 0 にできますが、有限の数で埋めると一様な重みになって見分けがつきません。",
        "ko": "가릴 곳을 -inf가 아니라 유한한 수(-1e9나 torch.finfo(dtype).min)로 채운 것 같습니다. 이 강좌의 연습 문제에서는 -inf로 채웁니다. 모든 키가 가려진 행을 0으로 만드는 것은 safe_softmax(연습 문제 5)가 할 일인데, -inf면 NaN이 되므로 0으로 바꿀 수 있지만, 유한한 수로 채우면 균일한 가중치가 되어 구별할 수 없습니다.",
    },
    "hint_additive_nan": {
        "ja": "残す場所に NaN が出ています。(~keep) * float(\"-inf\") は、keep が True の場所で 0 × (−∞) = NaN になります。masked_fill(~keep, float(\"-inf\")) を使ってください（加算マスクを作るなら torch.zeros(...).masked_fill(~keep, float(\"-inf\")) で作ります）。",
        "ko": "남길 곳에 NaN이 나왔습니다. (~keep) * float(\"-inf\")는 keep이 True인 곳에서 0 × (−∞) = NaN이 됩니다. masked_fill(~keep, float(\"-inf\"))을 쓰세요(덧셈 마스크를 만들려면 torch.zeros(...).masked_fill(~keep, float(\"-inf\"))로 만듭니다).",
    },
    "hint_keep_as_given": {
        "ja": "keep は (T, T) でも (B, 1, T, T) でもそのまま使えます（ブロードキャストされます）。keep[None, None] のように軸を足すと、(B, 1, T, T) の keep では 6 次元になってしまいます。",
        "ko": "keep은 (T, T)든 (B, 1, T, T)든 그대로 쓸 수 있습니다(브로드캐스트됩니다). keep[None, None]처럼 축을 더하면 (B, 1, T, T) 모양의 keep에서는 6차원이 되어 버립니다.",
    },
    "hint_invert_float_mask": {
        "ja": "~ は bool のテンソルにしか使えません。float の加算マスクは変換せずにそのまま返すので、先に mask.dtype == torch.bool かどうかで分けてください。",
        "ko": "~는 bool 텐서에만 쓸 수 있습니다. float 덧셈 마스크는 변환하지 않고 그대로 반환하므로, 먼저 mask.dtype == torch.bool인지로 나누세요.",
    },
    "hint_padding_or": {
        "ja": "因果マスクとパディングマスクを | でつないでいませんか。| では、どちらか一方が True なら見てしまいます（未来のキーも、パディングのキーも）。キーを見てよいのは両方が True のときだけなので、keep & padding_keep(lengths, T)[:, None, None, :] のように & でつなぎます。",
        "ko": "인과 마스크와 패딩 마스크를 |로 합친 것 같습니다. |로 합치면 둘 중 하나만 True여도 그 키를 보게 됩니다(미래의 키도, 패딩 키도). 키를 볼 수 있는 것은 둘 다 True일 때뿐이므로 keep & padding_keep(lengths, T)[:, None, None, :]처럼 &로 합칩니다.",
    },
    "hint_lengths_none": {
        "ja": "lengths を渡さずに（lengths=None のまま）呼ぶとエラーになりました。None の lengths でパディングマスクを作ろうとしていませんか。パディングマスクを作って keep と & をとるのは、lengths が渡されたとき（if lengths is not None: の中）だけです。",
        "ko": "lengths를 넘기지 않고(lengths=None) 호출하자 None을 그대로 쓰려다 오류가 났습니다. 패딩 마스크를 만들어 keep과 &를 취하는 것은 lengths가 주어졌을 때만입니다(if lengths is not None:).",
    },
    "hint_lengths_not_mask": {
        "ja": "lengths をそのままマスクとして使っていませんか。lengths は各系列の長さを並べた (B,) の整数テンソルで、マスクではありません。padding_keep(lengths, T) で (B, T) の bool マスクにしてから、[:, None, None, :] で (B, 1, 1, T) に広げて keep と & をとります。",
        "ko": "lengths는 각 시퀀스의 길이를 늘어놓은 (B,) 텐서이지 마스크가 아닙니다. padding_keep(lengths, T)로 (B, T) bool 마스크를 만든 뒤 [:, None, None, :]로 (B, 1, 1, T)로 늘립니다.",
    },
    "hint_padding_broadcast": {
        "ja": "パディングマスクがヘッドの軸にブロードキャストされていません。padding_keep(lengths, T) は (B, T) なので、[:, None, None, :] で (B, 1, 1, T)（バッチ・ヘッド・クエリ・キー）に広げてから因果マスクと & をとります。[:, None, :] の (B, 1, T) では、軸が1つずれてバッチがヘッドの位置に来ます。",
        "ko": "패딩 마스크가 헤드 축으로 브로드캐스트되지 않습니다. padding_keep(lengths, T)는 (B, T) 모양이므로 [:, None, None, :] 인덱싱으로 (B, 1, 1, T), 즉 (배치, 헤드, 쿼리, 키) 모양으로 늘린 다음 인과 마스크와 &로 합치세요. [:, None, :] 인덱싱으로 만든 (B, 1, T)는 축이 하나 어긋나서 배치가 헤드 자리에 옵니다.",
    },
    "hint_buffer_persistent": {
        "ja": "causal バッファが state_dict に入っています。register_buffer(\"causal\", …, persistent=False) として、保存されないようにしてください（いつでも作り直せるからです）。",
        "ko": "causal 버퍼가 state_dict에 들어 있습니다. register_buffer(\"causal\", …, persistent=False)로 등록해 저장되지 않게 하세요(언제든 다시 만들 수 있기 때문입니다).",
    },
    "hint_sdpa_nan_rows": {
        "ja": "use_sdpa=True の経路で、すべてのキーが隠された行が NaN になります。SDPA の計算方法（バックエンド）によってはそうした行を NaN にするので（GPU や 2.5 より前の PyTorch）、SDPA の出力に nan_to_num(0.0) をかけて 0 にそろえてください。この CPU では 0 になるので、チェックはその計算方法をまねて確かめています。",
        "ko": "use_sdpa=True 경로에서 모든 키가 가려진 행이 NaN이 됩니다. SDPA의 계산 방식(백엔드)에 따라 그런 행을 NaN으로 만들기 때문에(GPU나 2.5 이전의 PyTorch), SDPA의 출력에 nan_to_num(0.0)을 적용해 0으로 맞추세요. 이 CPU에서는 0이 나오므로, 검사는 그 계산 방식을 흉내 내어 확인합니다.",
    },
    "hint_mask_after_softmax": {
        "ja": "ソフトマックスのあとでマスクをかけていませんか。その場合、マスクした重みは 0 になりますが、各行の和が 1 になりません。マスクはソフトマックスの前に、スコアを -inf で埋める形でかけます。",
        "ko": "소프트맥스 다음에 마스크를 씌운 것 같습니다. 그러면 가린 가중치는 0이 되지만 각 행의 합이 1이 되지 않습니다. 마스크는 소프트맥스 전에, 점수를 -inf로 채우는 방식으로 씌워야 합니다.",
    },
    "hint_no_mask": {
        "ja": "重みの上三角が 0 になっていません。因果マスクがかかっていないようです。",
        "ko": "가중치의 위 삼각형이 0이 아닙니다. 인과 마스크가 적용되지 않은 것 같습니다.",
    },
    "hint_padding_off_by_one": {
        "ja": "1つずれています。長さ T_b の系列では位置 0 〜 T_b−1 が本物のトークンで、位置 T_b からがパディングです（arange(T) < T_b。≤ ではありません）。",
        "ko": "한 칸 어긋났습니다. 길이가 T_b인 시퀀스에서는 위치 0 ~ T_b−1이 실제 토큰이고 위치 T_b부터가 패딩입니다(arange(T) < T_b이며, ≤가 아닙니다).",
    },
    "hint_padding_inverted": {
        "ja": "True と False が逆です。padding_keep では本物のトークン（位置 < 長さ）を True、パディングを False にします。",
        "ko": "True와 False가 반대입니다. padding_keep에서는 실제 토큰(위치 < 길이)이 True, 패딩이 False입니다.",
    },
    "hint_padding_ignored": {
        "ja": "lengths が無視されているようです。パディングの位置（長さ以降のキー）にも重みが付いています。",
        "ko": "lengths가 무시된 것 같습니다. 패딩 위치(길이 이후의 키)에도 가중치가 붙어 있습니다.",
    },
    "hint_nan_fully_masked": {
        "ja": "すべてのキーがマスクされた行（長さ 0 の系列など）で NaN が出ています。softmax(-inf, …, -inf) は 0/0 = NaN です。そうした行では、ソフトマックスのあとで重みを 0 に置き換えてください（たとえば nan_to_num(0.0)）。",
        "ko": "모든 키가 가려진 행(길이 0인 시퀀스 등)에서 NaN이 나옵니다. softmax(-inf, …, -inf)는 0/0 = NaN입니다. 그런 행은 소프트맥스 다음에 가중치를 0으로 바꾸세요(예: nan_to_num(0.0)).",
    },
    "hint_sdpa_mismatch": {
        "ja": "use_sdpa=True の出力が、マスクを使った計算と一致しません。scaled_dot_product_attention の bool マスクは「True の場所を見る」です（nn.MultiheadAttention とは逆）。keep マスクをそのまま attn_mask に渡してください。",
        "ko": "use_sdpa=True의 출력이 마스크를 쓴 계산과 일치하지 않습니다. scaled_dot_product_attention의 bool 마스크는 'True인 곳을 본다'입니다(nn.MultiheadAttention과 반대). keep 마스크를 그대로 attn_mask에 넘기세요.",
    },
    "hint_same_convention": {
        "ja": "マスクがそのまま返ってきました。nn.MultiheadAttention の bool マスクは「True = 隠す」、scaled_dot_product_attention は「True = 見る」で、意味が逆です。",
        "ko": "마스크가 그대로 반환되었습니다. nn.MultiheadAttention의 bool 마스크는 'True = 가림', scaled_dot_product_attention은 'True = 봄'으로 뜻이 반대입니다.",
    },
    "hint_additive_changed": {
        "ja": "加算マスク（float）は、どちらの関数でも「スコアに足す値」なので、変換せずにそのまま返します。",
        "ko": "덧셈 마스크(float)는 두 함수 모두에서 '점수에 더하는 값'이므로 변환하지 않고 그대로 반환합니다.",
    },
    "hint_keep_transposed": {
        "ja": "keep が転置されています（.T や .mT）。keep の軸は (クエリ, キー) の順で、causal_mask(T) の下三角はそのままの向きで使います。apply_mask の中では keep を転置せず、scores.masked_fill(~keep, float(\"-inf\")) とします。",
        "ko": "keep이 전치되었습니다(.T나 .mT). keep의 축은 (쿼리, 키) 순서이고, causal_mask(T)의 아래 삼각형은 방향을 바꾸지 않고 그대로 씁니다. apply_mask 안에서는 keep을 전치하지 말고 scores.masked_fill(~keep, float(\"-inf\"))로 쓰세요.",
    },
    "hint_bool_subtract": {
        "ja": "bool のテンソルでは引き算（1 - keep など）ができません。keep の True と False を入れ替えるには ~keep を使います。",
        "ko": "bool 텐서로는 뺄셈(1 - keep 등)을 할 수 없습니다. keep의 True와 False를 뒤집으려면 ~keep을 쓰세요.",
    },
    "hint_dtype_changed": {
        "ja": "返したテンソルのデータ型が {got} です（scores は {want}）。.float() などでデータ型を変えずに、scores と同じデータ型のまま返してください。",
        "ko": "반환한 텐서의 자료형이 {got}입니다(scores는 {want}). .float() 등으로 자료형을 바꾸지 말고 scores와 같은 자료형 그대로 반환하세요.",
    },
    "hint_meta_values": {
        "ja": "lengths の値を Python の数として取り出していませんか（.tolist()、.item()、int() など）。チェックは GPU の代わりに meta デバイス（値を持たない仮想のデバイス）で試すので、値を取り出せません。GPU で動かすときも、取り出すたびに CPU が GPU の計算の終わりを待つことになります。値は取り出さずに、torch.arange(T, device=lengths.device) < lengths[:, None] のようにテンソルどうしで比べてください。",
        "ko": "lengths의 값을 Python 숫자로 꺼낸 것 같습니다(.tolist(), .item(), int() 등). 검사는 GPU 대신 meta 장치(값이 없는 가상 장치)에서 실행되므로 값을 꺼낼 수 없습니다. GPU에서도 값을 꺼낼 때마다 CPU가 GPU의 계산이 끝나기를 기다려야 합니다. 값을 꺼내지 말고 torch.arange(T, device=lengths.device) < lengths[:, None]처럼 텐서끼리 비교하세요.",
    },
    "hint_padding_short_by_one": {
        "ja": "位置が1つずれていて、本物のトークンとして残る位置が1つ足りません。位置は 0 から数えるので、位置の列は torch.arange(T)（0 から T - 1 まで）です（arange(1, T + 1) ではありません）。位置 t が t < T_b のとき True にします。",
        "ko": "마스크가 한 칸 어긋나 실제 토큰이 하나 적게 표시됩니다. 위치는 0부터 세므로 위치 번호는 torch.arange(T)(0부터 T - 1까지)로 만듭니다(arange(1, T + 1)이 아닙니다). 위치 t가 t < T_b일 때 True가 되게 하세요.",
    },
    "hint_dead_rows_not_zero": {
        "ja": "すべてのキーが隠された行が 0 になっていません（ほかの行は正しい値です）。その行のソフトマックスは NaN になるので、nan_to_num(0.0) で 0 に置き換えます（1 などほかの値ではありません）。",
        "ko": "모든 키가 가려진 행의 값이 0이 아닙니다(다른 행은 맞습니다). 이런 행은 소프트맥스 결과가 NaN이 되므로 nan_to_num(0.0)을 써서 0으로 바꾸세요. 1 같은 다른 값이 아니라 0이어야 합니다.",
    },
    "hint_padding_query_axis": {
        "ja": "パディングマスクがクエリの軸（行）にかかっています。パディングマスクが隠すのはキー（列）だけです。padding_keep(lengths, T) の結果は、[:, None, None, :] で (B, 1, 1, T)（バッチ・ヘッド・クエリ・キー）に広げます。[:, None, :, None] では、T の軸がクエリの位置に来てしまいます。",
        "ko": "패딩 마스크가 쿼리 축(행)에 적용되어 있습니다. 패딩 마스크는 키(열)만 가립니다. padding_keep(lengths, T)의 결과를 [:, None, None, :] 인덱싱으로 (B, 1, 1, T), 즉 (배치, 헤드, 쿼리, 키) 모양으로 늘리세요. [:, None, :, None] 인덱싱으로 늘리면 T가 쿼리 축에 놓입니다.",
    },
    "hint_sdpa_no_mask": {
        "ja": "use_sdpa=True の経路でマスクがかかっていないようです。scaled_dot_product_attention に attn_mask=keep を渡してください。",
        "ko": "use_sdpa=True 경로에서 마스크가 적용되지 않은 것 같습니다. scaled_dot_product_attention에 attn_mask=keep을 넘기세요.",
    },
    "hint_sdpa_args": {
        "ja": "scaled_dot_product_attention に引数を渡す順番が違います。引数は Q, K, V（クエリ・キー・バリュー）の順です。",
        "ko": "scaled_dot_product_attention에 넘기는 인자의 순서가 틀렸습니다. (Q, K, V), 즉 쿼리, 키, 밸류 순서로 넘기세요.",
    },
    "hint_scale_as_number": {
        "ja": "スコアを割る数が、このモジュールの √D になっていません。チェックで使うモジュールの D = 4 に合わせて、数を直接書いていませんか（math.sqrt(4) や 2 など）。D はモジュールごとに違うので、math.sqrt(self.head_dim) のように self.head_dim から求めてください。",
        "ko": "점수를 나누는 값이 이 모듈의 √D가 아닙니다. D = 4에 맞춰 숫자를 직접 쓴 것 같습니다(math.sqrt(4)나 2 등). D는 모듈마다 다르므로 self.head_dim으로 계산하세요(math.sqrt(self.head_dim)).",
    },
    "hint_dtype_mixed": {
        "ja": "計算の途中でデータ型が変わり、別のデータ型のテンソルどうしを組み合わせています（float32 と float64 など）。途中で使う関数（apply_mask など）が .float() などでデータ型を変えていないか確かめてください。",
        "ko": "계산 도중에 자료형이 바뀌어 자료형이 서로 다른 텐서끼리 연산하고 있습니다(float32와 float64 등). 중간에 부르는 함수(apply_mask 등)가 .float() 등으로 자료형을 바꾸지 않는지 확인하세요.",
    },
    "hint_sdpa_merge": {
        "ja": "use_sdpa=True の経路で、W_o に (B, H, T, D) のままの出力を渡していませんか。scaled_dot_product_attention の出力はヘッドごとの (B, H, T, D) なので、merge_heads で (B, T, H·D) にしてから W_o に通します。",
        "ko": "use_sdpa=True 경로에서 (B, H, T, D) 모양 그대로의 출력을 W_o에 넘긴 것 같습니다. scaled_dot_product_attention의 출력은 헤드별로 나뉜 (B, H, T, D)이므로 merge_heads로 합쳐 (B, T, H·D) 모양으로 만든 다음 W_o에 넣으세요.",
    },
    "hint_causal_full_length": {
        "ja": "系列長 T が max_len と等しいときに正しく動きません（もっと短い T では動きます）。self.causal は (max_len, max_len) なので、T ≤ max_len ならどの T でも self.causal[:T, :T]（左上の T × T）で切り出せます。切り出す位置がずれていないか（[1:T+1] など）、バッファを max_len より小さく作っていないか確かめてください。",
        "ko": "시퀀스 길이 T가 max_len과 같을 때 제대로 동작하지 않습니다(더 짧은 T에서는 동작합니다). self.causal은 (max_len, max_len)이므로 T ≤ max_len이면 어떤 T든 self.causal[:T, :T](왼쪽 위의 T × T)로 잘라 낼 수 있습니다. 잘라 내는 위치가 어긋나지 않았는지([1:T+1] 등), 버퍼를 max_len보다 작게 만들지 않았는지 확인하세요.",
    },
    "hint_inplace_and_buffer": {
        "ja": "keep &= … は、keep（バッファ self.causal から切り出した (T, T) のテンソル）をその場で書き換えようとします。(B, 1, 1, T) のパディングマスクとの & の結果は (B, 1, T, T) で、keep の形状に収まらないのでエラーになります。形状が合ったとしても、バッファ self.causal そのものを書き換えてしまいます。keep = keep & … と書いて、新しいテンソルを作ってください。",
        "ko": "keep &= …처럼 쓰면 keep(버퍼 self.causal에서 잘라 낸 (T, T) 뷰)을 제자리에서 덮어쓰게 됩니다. (B, 1, 1, T) 패딩 마스크와 &로 결합한 결과는 (B, 1, T, T)라서 keep에 들어가지 않으므로 오류가 납니다. 모양이 맞더라도 버퍼 self.causal 자체가 바뀌어 버립니다. keep = keep & …로 새 텐서를 만드세요.",
    },
    "hint_padding_max_len": {
        "ja": "パディングマスクの長さが max_len になっています。padding_keep には max_len ではなく、いまの系列長 T を渡します（padding_keep(lengths, T)）。",
        "ko": "패딩 마스크의 길이가 max_len으로 되어 있습니다. padding_keep에는 max_len이 아니라 현재 시퀀스 길이 T를 넘기세요(padding_keep(lengths, T)).",
    },
    "hint_padding_device": {
        "ja": "padding_keep の中で、位置の列が lengths と別のデバイスに作られています。torch.arange(T) のように device を指定せずに作ると CPU に置かれ、GPU 上の lengths と比べるときにエラーになります。torch.arange(T, device=lengths.device) のように、lengths と同じデバイスに作ってください。",
        "ko": "padding_keep 안에서 만든 위치 텐서(0, 1, …, T − 1)가 lengths와 다른 장치에 있습니다. torch.arange(T)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 lengths와 비교할 때 오류가 납니다. torch.arange(T, device=lengths.device)처럼 lengths와 같은 장치에 만드세요.",
    },
    "hint_safe_softmax_overflow": {
        "ja": "絶対値の大きなスコア（+800 前後や −800 前後の行など）を入れると、−∞ 以外の値を含む行が NaN や 0 になりました。exp(scores) をそのまま計算すると、大きな正のスコアでは inf / inf、大きな負のスコアでは 0 / 0 になります。exp の前に各行の最大値（scores.amax(dim=-1, keepdim=True)）を引けば、結果を変えずにこれを防げます（torch.softmax も中でこうしています）。すべてが −∞ の行では最大値も −∞ になって NaN が出ますが、これは nan_to_num(0.0) で 0 にできます。",
        "ko": "절댓값이 큰 점수(예: +800 안팎이나 −800 안팎인 행)를 넣었더니, −∞가 아닌 값이 하나라도 있는 행이 NaN이나 0이 되었습니다. exp(scores)를 그대로 계산하면 큰 양수 점수에서는 inf / inf, 큰 음수 점수에서는 0 / 0이 됩니다. exp를 취하기 전에 각 행의 최댓값(scores.amax(dim=-1, keepdim=True))을 빼면 결과는 바뀌지 않고 이 문제를 막을 수 있습니다(torch.softmax도 내부에서 이렇게 합니다). 모든 값이 −∞인 행은 최댓값도 −∞라서 NaN이 되지만, nan_to_num(0.0)을 쓰면 0으로 바꿀 수 있습니다.",
    },
    "causal_max_len_buffer": {
        "ja": "CausalSelfAttention(…, max_len={max_len}) で作ったモジュールのバッファ self.causal の形状が {got} です。(max_len, max_len) = ({max_len}, {max_len}) になるはずです。",
        "ko": "CausalSelfAttention(…, max_len={max_len})의 causal 버퍼 모양이 {got}입니다. 모양은 (max_len, max_len) = ({max_len}, {max_len})이어야 합니다.",
    },
    "hint_causal_max_len": {
        "ja": "バッファ self.causal の大きさが max_len で決まっていません。causal_mask(32) や torch.ones(32, 32) のように大きさを数で直接書かずに、__init__ の引数 max_len を使って causal_mask(max_len) で作ってください。チェックでは、既定の 32 より大きい max_len でモジュールを作り、32 より長い系列を入力します。",
        "ko": "버퍼 self.causal의 크기가 max_len으로 정해지지 않았습니다. causal_mask(32)나 torch.ones(32, 32)처럼 크기를 숫자로 고정하지 말고, __init__의 인자 max_len을 써서 causal_mask(max_len)으로 만드세요. 검사에서는 기본값 32보다 큰 max_len으로 모듈을 만들고 32보다 긴 시퀀스를 넣습니다.",
    },
    "mask_differs": {
        "ja": "{what}の値が {total} か所のうち {n} か所で正しくありません。",
        "ko": "{what}의 값이 {total}곳 중 {n}곳에서 올바르지 않습니다.",
    },
    "fig_pad_token": {"ja": "〈パッド〉", "ko": "〈패드〉"},
    "demo_mult_mask": {
        "ja": "softmax(s * keep)（バッチ 0・ヘッド 0 の 4×4。行がクエリ）=\n",
        "ko": "softmax(s * keep) (배치 0, 헤드 0의 4×4 부분, 행은 쿼리) =\n",
    },
    "hint_not_causal": {
        "ja": "因果性が崩れています：位置 {t} より後のトークンを変えたら、位置 {t} までの出力が変わりました。",
        "ko": "인과성이 깨졌습니다: 위치 {t} 뒤의 토큰을 바꾸자 위치 {t}까지의 출력이 바뀌었습니다.",
    },
    "case_masked_path": {
        "ja": "自分で書いた計算（use_sdpa=False）",
        "ko": "직접 구현한 계산(use_sdpa=False)",
    },
    "case_sdpa_path": {
        "ja": "scaled_dot_product_attention を使った計算（use_sdpa=True）",
        "ko": "scaled_dot_product_attention을 쓴 계산(use_sdpa=True)",
    },
    "case_eval_determinism": {"ja": "eval モードでの再現性", "ko": "eval 모드에서의 재현성"},
    "dropout_train_differs": {
        "ja": "train モード（dropout=0.5、同じ乱数シード）で、出力か返した重みが正しい値と一致しません（最大誤差 {err:.3g}）。ドロップアウトはソフトマックスのあとの重みにかけてから V に掛け、返す重みはドロップアウトをかける前のものにします。",
        "ko": "train 모드(dropout=0.5, 같은 난수 시드)에서 출력이나 반환한 가중치가 올바른 값과 일치하지 않습니다(최대 오차 {err:.3g}). 드롭아웃은 소프트맥스를 거친 가중치에 적용한 뒤 V와 곱하고, 반환하는 가중치는 드롭아웃 전의 것이어야 합니다.",
    },
}
